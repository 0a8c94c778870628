import { ActionIcon, Badge, Button, Group, Modal, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import type { TCampaignSource } from '@sendwell/contracts';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { TableScroller } from '../../components/TableScroller';

const KIND_LABELS: Record<TCampaignSource['kind'], string> = {
  file: 'CSV file',
  manual: 'Typed in',
  list: 'Mailing list',
};

const count = (value: number) => value.toLocaleString('en-US');

/**
 * The spec's list of files (recipients step): each file, typed-in batch and list the draft's
 * recipients come from, what it gave, and Remove behind a confirmation.
 */
export const RecipientSources = ({
  files,
  duplicates,
  onRemove,
  isRemoving,
}: {
  files: TCampaignSource[];
  duplicates: number;
  onRemove: (index: number) => void;
  isRemoving: boolean;
}) => {
  const [removing, setRemoving] = useState<TCampaignSource | null>(null);
  return (
    <Stack gap="xs">
      <TableScroller label="Recipient files">
        <Table aria-label="Recipient files" withTableBorder miw={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>File</Table.Th>
              <Table.Th ta="right">Rows</Table.Th>
              <Table.Th ta="right">Added</Table.Th>
              <Table.Th ta="right">Duplicates</Table.Th>
              <Table.Th ta="right">Left out</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {files.map((file) => (
              <Table.Tr key={file.id}>
                <Table.Td>
                  <Group gap={6} wrap="nowrap">
                    <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                      {file.name}
                    </Text>
                    <Badge variant="light" color="gray" size="sm">
                      {KIND_LABELS[file.kind]}
                    </Badge>
                  </Group>
                  {file.unverified > 0 && (
                    <Text size="xs" c="orange.9">
                      {count(file.unverified)} not verified
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right">{count(file.rows)}</Table.Td>
                <Table.Td ta="right">{count(file.added)}</Table.Td>
                <Table.Td ta="right">{count(file.duplicates)}</Table.Td>
                <Table.Td ta="right">{count(file.skipped)}</Table.Td>
                <Table.Td>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={`Remove ${file.name}`}
                    onClick={() => setRemoving(file)}
                  >
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </TableScroller>
      {duplicates > 0 && (
        <Text size="sm" c="dimmed" data-testid="recipient-duplicates">
          {count(duplicates)} {duplicates === 1 ? 'address was' : 'addresses were'} given more than once: each is one
          recipient.
        </Text>
      )}
      <Modal opened={removing !== null} onClose={() => setRemoving(null)} title="Remove these recipients?" centered>
        {removing && (
          <Stack>
            <Text size="sm">“{removing.name}” goes, with its recipients that no other file or list gives.</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRemoving(null)}>
                Cancel
              </Button>
              <Button
                color="red.9"
                data-autofocus
                loading={isRemoving}
                onClick={() => {
                  onRemove(removing.index);
                  setRemoving(null);
                }}
              >
                Remove
              </Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
};
