import { Badge, Group, List, Paper, Text } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { preSendApi, type TEmailDocument, type TPreSendItem, worstStatus } from '@sendwell/contracts';
import { useQuery } from '@tanstack/react-query';
import { callRoute } from '../../app/api';
import { CHECK_LOOK, CheckItem } from '../CheckItem';

/** How long the message must rest before it is checked again. */
const CHECK_PAUSE_MS = 1200;

/**
 * What the editor itself knows, at once: images without alternative text (screen readers,
 * images turned off) and a message without a footer block naming the sender's postal address.
 */
export const editorItems = (html: string, document: TEmailDocument | null): TPreSendItem[] => {
  const items: TPreSendItem[] = [];
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  const images = Array.from(parsed.images).filter((image) => (image.getAttribute('width') ?? '') !== '1');
  const withoutAlt = images.filter((image) => !(image.getAttribute('alt') ?? '').trim()).length;
  items.push({
    id: 'editor-alt-text',
    group: 'message',
    title: 'Alternative text',
    status: withoutAlt > 0 ? 'warn' : 'pass',
    detail:
      withoutAlt > 0
        ? `${withoutAlt} of ${images.length} image${images.length === 1 ? '' : 's'} without alternative text.`
        : images.length > 0
          ? 'Every image says what it shows.'
          : 'No images.',
    advice:
      withoutAlt > 0
        ? 'Say in a few words what each image shows: screen readers read it, and many clients show it while images are off.'
        : null,
  });
  if (document && document.kind === 'email') {
    const footer = document.blocks.find((block) => block.type === 'footer');
    items.push({
      id: 'editor-postal-address',
      group: 'message',
      title: 'Postal address',
      status: footer?.address.trim() ? 'pass' : 'warn',
      detail: footer?.address.trim() ? 'The footer names your postal address.' : 'No postal address in the message.',
      advice: footer?.address.trim()
        ? null
        : 'Add a Footer block with your postal address: CAN-SPAM requires it, and Gmail and Yahoo expect it of bulk senders.',
    });
  }
  return items;
};

/**
 * The message's checks beside the editor (issue 46 §3), as the user writes: the spam test's
 * own content checks on the message as the engine composes it (the server's, once typing
 * pauses: link text naming another domain, an image-only body, Gmail's clip, scripts…) and the
 * editor's own. Only what needs a look is listed; nothing here stops a send.
 */
export const MessageChecks = ({
  html,
  subject,
  document,
}: {
  html: string;
  subject: string;
  document: TEmailDocument | null;
}) => {
  const [checked] = useDebouncedValue({ html, subject }, CHECK_PAUSE_MS);
  const server = useQuery({
    queryKey: ['email-editor', 'message-check', checked.subject, checked.html],
    queryFn: () => callRoute(preSendApi.messageCheck, { body: checked }),
    enabled: checked.html.trim() !== '',
    staleTime: 60_000,
    meta: { reportErrors: false },
  });
  if (!html.trim()) return null;
  const items = [...(server.data?.items ?? []), ...editorItems(html, document)];
  const shown = items.filter((item) => item.status !== 'pass' && item.id !== 'message-score');
  const worst = worstStatus(items);
  return (
    <Paper withBorder p="sm" radius="sm" component="section" aria-label="Message checks" data-testid="message-checks">
      <Group justify="space-between" mb={shown.length > 0 ? 'xs' : 0}>
        <Text size="sm" fw={600}>
          Message checks
        </Text>
        <Badge color={CHECK_LOOK[worst].color} variant="light" tt="none">
          {server.data
            ? `Content ${server.data.messageScore} of 10`
            : server.isFetching
              ? 'Checking…'
              : 'Not checked yet'}
        </Badge>
      </Group>
      {shown.length === 0 ? (
        <Text size="xs" c="dimmed">
          Nothing to fix so far.
        </Text>
      ) : (
        <List spacing={6} size="sm" listStyleType="none">
          {shown.map((item) => (
            <CheckItem key={item.id} item={item} size="xs" />
          ))}
        </List>
      )}
    </Paper>
  );
};
