import { Accordion, Badge, Code, Group, Paper, Stack, Table, Text, ThemeIcon, Title } from '@mantine/core';
import type { TSpamCheck, TSpamEngine, TSpamReport } from '@sendwell/contracts';
import { IconAlertTriangle, IconCheck, IconInfoCircle, IconX } from '@tabler/icons-react';
import { TableScroller } from '../../components/TableScroller';

const CATEGORY_TITLES: Record<TSpamCheck['category'], string> = {
  authentication: 'Authentication',
  headers: 'Headers',
  content: 'Content',
  blocklists: 'Blocklists',
  engines: 'Content engines',
};

const STATUS_LOOK: Record<TSpamCheck['status'], { color: string; icon: typeof IconCheck; label: string }> = {
  pass: { color: 'green', icon: IconCheck, label: 'Passed' },
  info: { color: 'blue', icon: IconInfoCircle, label: 'Information' },
  warn: { color: 'orange', icon: IconAlertTriangle, label: 'Warning' },
  fail: { color: 'red', icon: IconX, label: 'Failed' },
};

/** How an engine's state reads on the result page: a timeout is named, never shown as a pass. */
export const ENGINE_STATUS_LABELS: Record<TSpamEngine['status'], string> = {
  scored: 'scored',
  off: 'off',
  unreachable: 'not reachable',
  timeout: 'timed out',
};

/** Points with one decimal, so a 0.3 penalty reads as 0.3 and sums match the score. */
const points = (value: number) => `−${value.toFixed(1)} ${value === 1 ? 'point' : 'points'}`;

const CheckRow = ({ check }: { check: TSpamCheck }) => {
  const look = STATUS_LOOK[check.status];
  const Icon = look.icon;
  return (
    <Group align="flex-start" wrap="nowrap" gap="sm" data-testid={`check-${check.id}`}>
      <ThemeIcon color={look.color} variant="light" radius="xl" size="md" aria-label={look.label} role="img">
        <Icon size={16} aria-hidden />
      </ThemeIcon>
      <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
        <Group gap="xs" justify="space-between" wrap="nowrap">
          <Text fw={600} size="sm">
            {check.title}
          </Text>
          {check.penalty > 0 && (
            <Badge color={look.color} variant="light" style={{ flex: 'none' }}>
              {points(check.penalty)}
            </Badge>
          )}
        </Group>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {check.detail}
        </Text>
        {check.advice && (
          <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            <strong>What to do:</strong> {check.advice}
          </Text>
        )}
      </Stack>
    </Group>
  );
};

/** The analysis behind a score: each category's findings, what they cost and what to do; the engines' rules. */
export const SpamReport = ({ report }: { report: TSpamReport }) => {
  const categories = (Object.keys(CATEGORY_TITLES) as TSpamCheck['category'][]).filter((category) =>
    report.checks.some((check) => check.category === category),
  );
  return (
    <Stack gap="md">
      {categories.map((category) => {
        const checks = report.checks.filter((check) => check.category === category);
        const lost = checks.reduce((sum, check) => sum + Math.round(check.penalty * 10), 0) / 10;
        return (
          <Paper
            withBorder
            p="md"
            radius="md"
            key={category}
            component="section"
            aria-label={CATEGORY_TITLES[category]}
          >
            <Group justify="space-between" mb="sm">
              <Title order={3} fz="md">
                {CATEGORY_TITLES[category]}
              </Title>
              <Text size="sm" c={lost > 0 ? 'red' : 'green'} fw={600}>
                {lost > 0 ? points(lost) : 'No points lost'}
              </Text>
            </Group>
            <Stack gap="sm">
              {checks.map((check) => (
                <CheckRow key={check.id} check={check} />
              ))}
            </Stack>
          </Paper>
        );
      })}
      <Paper withBorder p="md" radius="md" component="section" aria-label="What each engine found">
        <Title order={3} fz="md" mb="sm">
          What each engine found
        </Title>
        <Accordion variant="separated" multiple>
          {report.engines.map((engine) => (
            <Accordion.Item value={engine.name} key={engine.name}>
              <Accordion.Control>
                <Group gap="sm">
                  <Text fw={600} size="sm">
                    {engine.name}
                  </Text>
                  {engine.status === 'scored' ? (
                    <Badge variant="light" color={engine.isSpam ? 'red' : 'gray'}>
                      {typeof engine.contentScore === 'number' && engine.contentScore !== engine.score
                        ? `${engine.contentScore} on content, ${engine.score} in all`
                        : engine.score}{' '}
                      (spam from {engine.threshold})
                    </Badge>
                  ) : (
                    <Badge variant="light" color="orange">
                      {ENGINE_STATUS_LABELS[engine.status]}
                    </Badge>
                  )}
                </Group>
              </Accordion.Control>
              <Accordion.Panel>
                <Text size="sm" mb="xs">
                  {engine.detail}
                </Text>
                {engine.rules.length > 0 && (
                  <TableScroller label={`Rules of ${engine.name}`}>
                    <Table striped withTableBorder fz="sm" miw={420} aria-label={`Rules of ${engine.name}`}>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>Rule</Table.Th>
                          <Table.Th>Points</Table.Th>
                          <Table.Th>Meaning</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {engine.rules.map((rule) => (
                          <Table.Tr key={rule.name}>
                            <Table.Td>
                              <Code>{rule.name}</Code>
                            </Table.Td>
                            <Table.Td>{rule.score}</Table.Td>
                            <Table.Td>{rule.description}</Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </TableScroller>
                )}
              </Accordion.Panel>
            </Accordion.Item>
          ))}
        </Accordion>
      </Paper>
      {report.authenticationResults && (
        <Paper withBorder p="md" radius="md" component="section" aria-label="Authentication-Results">
          <Title order={3} fz="md" mb="sm">
            The header a receiver adds
          </Title>
          <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {report.authenticationResults}
          </Code>
        </Paper>
      )}
    </Stack>
  );
};
