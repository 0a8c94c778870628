import { Badge, Button, Group, Modal, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import type { TTemplate } from '@sendwell/contracts';
import { IconCheck, IconSearch } from '@tabler/icons-react';
import { useId, useState } from 'react';

type TProps = {
  opened: boolean;
  templates: TTemplate[];
  /** The template the message came from, marked in the list. */
  currentId: string | null;
  onPick: (id: string) => void;
  onClose: () => void;
};

const matches = (template: TTemplate, search: string) =>
  `${template.name} ${template.description}`.toLowerCase().includes(search.trim().toLowerCase());

/** One template: its name is the button that takes it; the description says what it is. */
const TemplateCard = ({
  template,
  isCurrent,
  onPick,
}: {
  template: TTemplate;
  isCurrent: boolean;
  onPick: (id: string) => void;
}) => {
  const descriptionId = useId();
  return (
    <Paper withBorder p="sm" radius="md">
      <Stack gap={6} h="100%" justify="space-between">
        <Stack gap={2}>
          <Group gap={6} wrap="nowrap" justify="space-between">
            <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
              {template.name}
            </Text>
            {isCurrent && (
              <Badge variant="light" size="sm" leftSection={<IconCheck size={10} aria-hidden />}>
                In use
              </Badge>
            )}
          </Group>
          {template.description && (
            <Text size="xs" c="dimmed" id={descriptionId}>
              {template.description}
            </Text>
          )}
        </Stack>
        <Button
          size="xs"
          variant={isCurrent ? 'default' : 'light'}
          aria-describedby={template.description ? descriptionId : undefined}
          onClick={() => onPick(String(template.id))}
        >
          Use {template.name}
        </Button>
      </Stack>
    </Paper>
  );
};

/**
 * Change Template (spec §2 screen 2): the starting templates and the user's own, each with
 * what it is for, searchable by name. Choosing one hands it to the form, which asks before it
 * replaces a message the user wrote.
 */
export const TemplateGallery = ({ opened, templates, currentId, onPick, onClose }: TProps) => {
  const [search, setSearch] = useState('');
  const shown = templates.filter((template) => matches(template, search));
  const groups = [
    { title: 'Starting templates', items: shown.filter((template) => template.builtIn) },
    { title: 'Your templates', items: shown.filter((template) => !template.builtIn) },
  ].filter((group) => group.items.length > 0);
  return (
    <Modal opened={opened} onClose={onClose} title="Choose a template" size="xl">
      <Stack>
        <TextInput
          label="Search templates"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          data-autofocus
        />
        {groups.length === 0 && (
          <Text size="sm" c="dimmed">
            No template by that name.
          </Text>
        )}
        {groups.map((group) => (
          <Stack key={group.title} gap="xs" component="section" aria-label={group.title}>
            <Title order={3} fz="sm">
              {group.title}
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm">
              {group.items.map((template) => (
                <TemplateCard
                  key={template.id}
                  template={template}
                  isCurrent={String(template.id) === currentId}
                  onPick={onPick}
                />
              ))}
            </SimpleGrid>
          </Stack>
        ))}
      </Stack>
    </Modal>
  );
};
