import { Box, Center, Divider, Group, Paper, SegmentedControl, Select, Stack, Switch, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { listsApi, type TMergeRecipient } from '@sendwell/contracts';
import { IconDeviceDesktop, IconDeviceMobile, IconEye } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { memo, useMemo, useState } from 'react';
import { callRoute } from '../../app/api';
import { previewDocument, previewText, SAMPLE_RECIPIENT } from './send-email.preview';

type TProps = {
  html: string;
  subject: string;
  from: string;
  to: string[];
  /** The chosen lists, whose members the preview can be filled for. */
  listIds?: number[];
};

/** How long the message must stay unchanged before the frame shows it. */
const PREVIEW_PAUSE_MS = 250;

const WIDTHS = { desktop: '100%', mobile: '390px' } as const;
type TWidth = keyof typeof WIDTHS;

const HeaderLine = ({ label, value }: { label: string; value: string }) => (
  <Group gap="xs" wrap="nowrap" align="baseline">
    <Text size="sm" c="dimmed" w={64} style={{ flexShrink: 0 }}>
      {label}
    </Text>
    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
      {value || '—'}
    </Text>
  </Group>
);

/**
 * The message as its first recipient would see it. The HTML runs in an iframe with an empty
 * sandbox (no scripts, no same origin) and a CSP of its own; the subject, sender and list names
 * are React text. Never add `allow-scripts` or `allow-same-origin` here: together they let a
 * message reach the signed-in page (R15).
 */
export const EmailPreview = memo(({ html, subject, from, to, listIds = [] }: TProps) => {
  const [width, setWidth] = useState<TWidth>('desktop');
  const [isDark, setIsDark] = useState(false);
  const [memberId, setMemberId] = useState<string | null>(null);
  const firstList = listIds[0] ?? null;
  const members = useQuery({
    queryKey: ['send-email', 'preview-members', firstList],
    queryFn: () => callRoute(listsApi.members, { params: { listId: firstList! }, query: { per_page: 20, page: 1 } }),
    enabled: firstList !== null,
  });
  const member = members.data?.data.find((candidate) => String(candidate.id) === memberId) ?? null;
  // One object per chosen member: a new one each render would make a new preview frame each render.
  const recipient: TMergeRecipient = useMemo(
    () => (member ? { email: member.email, name: member.fullname, fields: member.fields } : SAMPLE_RECIPIENT),
    [member],
  );
  // The frame follows the message once typing pauses: each new document is a new frame
  // (below), and making one per keystroke cost more than the keystroke itself (20–40 ms
  // each on a slow machine, more on a long newsletter).
  const [shownHtml] = useDebouncedValue(html, PREVIEW_PAUSE_MS);
  const srcDoc = useMemo(() => previewDocument(shownHtml, recipient, isDark), [shownHtml, recipient, isDark]);

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-label="Preview">
      <Group justify="space-between" mb="sm">
        <Group gap={6}>
          <IconEye size={18} aria-hidden />
          <Text fw={600}>Preview</Text>
        </Group>
        <SegmentedControl
          size="xs"
          value={width}
          onChange={(value) => setWidth(value as TWidth)}
          aria-label="Preview width"
          data={[
            {
              value: 'desktop',
              label: (
                <Center style={{ gap: 4 }}>
                  <IconDeviceDesktop size={14} aria-hidden />
                  <span>Desktop</span>
                </Center>
              ),
            },
            {
              value: 'mobile',
              label: (
                <Center style={{ gap: 4 }}>
                  <IconDeviceMobile size={14} aria-hidden />
                  <span>Phone, 390 px</span>
                </Center>
              ),
            },
          ]}
        />
      </Group>
      <Group gap="md" mb="sm" align="flex-end">
        <Select
          size="xs"
          label="Fill merge fields for"
          placeholder={`${SAMPLE_RECIPIENT.name} (sample)`}
          data={(members.data?.data ?? []).map((candidate) => ({
            value: String(candidate.id),
            label: candidate.fullname ? `${candidate.fullname} <${candidate.email}>` : candidate.email,
          }))}
          value={memberId}
          onChange={setMemberId}
          clearable
          disabled={firstList === null}
          w={260}
        />
        <Switch
          size="sm"
          label="Dark mode (approximation)"
          checked={isDark}
          onChange={(event) => setIsDark(event.currentTarget.checked)}
        />
      </Group>
      <Stack gap={4} mb="sm" data-testid="preview-headers">
        <HeaderLine label="From" value={from} />
        <HeaderLine label="To" value={to.join(', ')} />
        <HeaderLine label="Subject" value={previewText(subject, recipient)} />
      </Stack>
      <Divider mb="sm" />
      {shownHtml.trim() ? (
        <Box mx="auto" maw={WIDTHS[width]} style={{ transition: 'max-width 150ms ease' }}>
          {/* A new frame per document: Chromium can leave a sandboxed frame blank (complete, but
              never laid out) when its srcdoc changes again while the last one is committing. */}
          <iframe
            key={srcDoc}
            title="Email preview"
            sandbox=""
            srcDoc={srcDoc}
            referrerPolicy="no-referrer"
            style={{
              display: 'block',
              width: '100%',
              height: 640,
              border: '1px solid var(--mantine-color-default-border)',
              borderRadius: 'var(--mantine-radius-sm)',
              background: '#fff',
            }}
          />
        </Box>
      ) : (
        <Center h={240} bg="var(--mantine-color-default-hover)" style={{ borderRadius: 'var(--mantine-radius-sm)' }}>
          <Text c="dimmed" size="sm" ta="center" maw={320}>
            Write your message, import an HTML file or pick a template: it shows here as your recipients will see it.
          </Text>
        </Center>
      )}
      <Text size="xs" c="dimmed" mt="xs">
        Merge fields are filled in for{' '}
        {member
          ? `${recipient.name || recipient.email}, a member of the first chosen list`
          : `a sample recipient, ${SAMPLE_RECIPIENT.name} (${SAMPLE_RECIPIENT.email})`}
        .
      </Text>
    </Paper>
  );
});
