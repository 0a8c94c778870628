import { Anchor, Badge, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { AB_METRIC_LABELS, describeWait, type TAbTestResult } from '@sendwell/contracts';
import { IconArrowsSplit, IconTrophy } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useFormatDateTime } from '../../app/dates';

const STATUS_COLORS: Record<TAbTestResult['status'], string> = { testing: 'blue', decided: 'green', cancelled: 'gray' };

/**
 * An A/B subject test's result on each of its sends' History page (issue 31 §4): each
 * subject's recipients, opens, clicks and rates (the same figures as everywhere, R33), the
 * winner and when it was chosen, or when it will be.
 */
export const AbTestResult = ({ result, accountId }: { result: TAbTestResult; accountId: number }) => {
  const formatDateTime = useFormatDateTime();
  const winner = result.variants.find((variant) => variant.isWinner);
  return (
    <Paper withBorder p="md" mb="md" component="section" aria-labelledby="ab-test-title" data-testid="ab-test-result">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <IconArrowsSplit size={18} aria-hidden />
            <Title order={2} fz="md" id="ab-test-title">
              A/B subject test
            </Title>
          </Group>
          <Badge color={STATUS_COLORS[result.status]} variant="light" data-testid="ab-test-status">
            {result.status}
          </Badge>
        </Group>
        <Text size="sm" data-testid="ab-test-decision">
          {result.status === 'testing' &&
            `${result.testPercent}% of the recipients test the subjects; the better ${AB_METRIC_LABELS[
              result.metric
            ].toLowerCase()} is chosen ${describeWait(result.waitMinutes)} after the last test email is handed over (at ${formatDateTime(result.decideAt)} at the earliest).`}
          {result.status === 'decided' &&
            `Subject ${winner?.letter ?? '?'} won by ${AB_METRIC_LABELS[result.metric].toLowerCase()}, chosen at ${formatDateTime(
              result.decidedAt ?? result.decideAt,
            )}. ${result.decision ?? ''}`}
          {result.status === 'cancelled' && (result.decision ?? 'Cancelled before the winner was chosen.')}
        </Text>
        <Table.ScrollContainer minWidth={560}>
          <Table striped withTableBorder>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Subject</Table.Th>
                <Table.Th ta="right">Recipients</Table.Th>
                <Table.Th ta="right">Opened</Table.Th>
                <Table.Th ta="right">Clicked</Table.Th>
                <Table.Th ta="right">Open rate</Table.Th>
                <Table.Th ta="right">Click rate</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {result.variants.map((variant) => (
                <Table.Tr key={variant.part} data-testid={`ab-variant-${variant.letter}`}>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Badge variant="outline" color="gray" size="sm">
                        {variant.letter}
                      </Badge>
                      <Anchor component={Link} to={`/history/details/${accountId}/${variant.sendId}`} size="sm">
                        {variant.subject}
                      </Anchor>
                      {variant.isWinner && (
                        <Badge color="green" leftSection={<IconTrophy size={12} aria-hidden />} size="sm">
                          winner
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right">{variant.recipients.toLocaleString('en-US')}</Table.Td>
                  <Table.Td ta="right">{variant.opened.toLocaleString('en-US')}</Table.Td>
                  <Table.Td ta="right">{variant.clicked.toLocaleString('en-US')}</Table.Td>
                  <Table.Td ta="right">{variant.openRate}%</Table.Td>
                  <Table.Td ta="right">{variant.clickRate}%</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        {result.rest && (
          <Text size="sm" c="dark.4" data-testid="ab-test-rest">
            The rest:{' '}
            <Anchor component={Link} to={`/history/details/${accountId}/${result.rest.sendId}`} size="sm">
              {result.rest.recipients.toLocaleString('en-US')} recipients
            </Anchor>
            ,{' '}
            {result.rest.state === 'held'
              ? 'waiting for the winner'
              : result.rest.state === 'cancelled'
                ? 'cancelled'
                : `sent the winning subject (${result.rest.state})`}
            .
          </Text>
        )}
      </Stack>
    </Paper>
  );
};
