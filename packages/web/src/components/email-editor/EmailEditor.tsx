import {
  ActionIcon,
  Alert,
  Button,
  FileButton,
  Grid,
  Group,
  Menu,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Tooltip,
  VisuallyHidden,
} from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { STANDARD_MERGE_FIELDS, type TBlock, type TBlockType, type TEmailDocument } from '@sendwell/contracts';
import { renderEmail } from '@sendwell/contracts/email/render';
import { bodyOf, documentFromHtml, isRenderOf } from '@sendwell/contracts/email/round-trip';
import { IconArrowBackUp, IconArrowForwardUp, IconBraces, IconFileCode, IconPalette } from '@tabler/icons-react';
import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import { BlockSettings, blockTitle, StyleSettings } from './BlockSettings';
import {
  addBlock,
  duplicateBlock,
  emptyDocument,
  findBlock,
  moveBlock,
  moveBlockTo,
  newBlock,
  newId,
  positionOf,
  removeBlock,
  starterDocument,
  updateBlock,
} from './blocks';
import { MessageChecks } from './MessageChecks';
import { VisualCanvas } from './VisualEditor';

/** A message as the editor holds it: the HTML that is sent, and the document it came from (null: written in HTML). */
export type TEmailContent = { html: string; document: TEmailDocument | null };

export type TEmailEditorProps = {
  value: TEmailContent;
  onChange: (value: TEmailContent) => void;
  /** The field's name for screen readers ("Message", "Signature"). */
  label: string;
  /** The id the form focuses on an error (the HTML editor's, or the Visual/HTML switch). */
  id?: string;
  error?: string | undefined;
  /** Custom merge fields the recipients have, beside the standard ones. */
  variables?: readonly string[];
  /** A fragment (a signature) rather than a whole message: no page frame, no footer block. */
  isFragment?: boolean;
  /**
   * What a new, empty message starts as: `design` (a heading, a text and the footer) or
   * `letter` (a text and the footer: a drip email reads like a letter).
   */
  start?: 'design' | 'letter';
  /** The Personalise menu's name (the drip editor's spec name: 'Insert Text Replacement'). */
  personaliseLabel?: string;
  /** The message's subject, for the message checks beside the editor (none for a fragment). */
  subject?: string;
};

type TMode = 'visual' | 'html';

const firstTextOf = (document: TEmailDocument | null) =>
  document?.blocks.find((block) => block.type === 'text')?.id ?? null;

/** CodeMirror and its HTML language on a chunk of their own: a message edited visually never loads them. */
const HtmlCodeEditor = lazy(() => import('./HtmlCodeEditor'));

/** The mode a message opens in: Visual when its HTML is what its document renders, else HTML (issue 46 §7). */
const initialMode = (value: TEmailContent): TMode =>
  value.document ? (isRenderOf(value.html, value.document) ? 'visual' : 'html') : value.html.trim() ? 'html' : 'visual';

const isHtmlFile = (file: File) => /\.html?$/i.test(file.name) || file.type === 'text/html';

/** Undo or Redo: an icon named by its tooltip's words. */
const HistoryButton = ({
  label,
  icon: Icon,
  onClick,
  disabled,
}: {
  label: string;
  icon: typeof IconArrowBackUp;
  onClick: () => void;
  disabled: boolean;
}) => (
  <Tooltip label={label}>
    <ActionIcon variant="default" size="lg" aria-label={label} onClick={onClick} disabled={disabled}>
      <Icon size={16} aria-hidden />
    </ActionIcon>
  </Tooltip>
);

/** Changes kept for Undo; typing in one block within this long is one step. */
const HISTORY_LIMIT = 100;
const COALESCE_MS = 1000;

/**
 * The one email editor (issue 46): Visual (blocks), HTML (CodeMirror) and Import Html, for
 * Send Email, Edit Scheduled Email, templates, drip steps and the drip signature. Loaded on
 * its own chunk by `LazyEmailEditor`, so screens that do not edit never fetch it.
 */
export const EmailEditor = ({
  value,
  onChange,
  label,
  id,
  error,
  variables = [],
  isFragment = false,
  start = 'design',
  personaliseLabel = 'Personalise',
  subject = '',
}: TEmailEditorProps) => {
  const [mode, setMode] = useState<TMode>(() => initialMode(value));
  const [chosen, setSelected] = useState<string | null | 'first-text'>('first-text');
  const [fallback, setFallback] = useState('');
  const [announcement, setAnnouncement] = useState('');
  const history = useRef<{ past: TEmailDocument[]; future: TEmailDocument[]; lastKey: string; lastAt: number }>({
    past: [],
    future: [],
    lastKey: '',
    lastAt: 0,
  });
  const insertAt = useRef<((text: string) => void) | null>(null);
  const latest = useRef(value);
  latest.current = value;

  const fresh = useCallback(() => {
    if (start === 'design' && !isFragment) return starterDocument();
    const document = isFragment ? { ...emptyDocument(), kind: 'fragment' as const } : emptyDocument();
    document.blocks.push({ ...newBlock('text', document), html: '' } as TBlock);
    if (!isFragment) document.blocks.push(newBlock('footer', document));
    return document;
  }, [isFragment, start]);
  // A new message's document is made once, and stored only when the user changes it.
  const [blank] = useState(fresh);
  const document = value.document ?? (value.html.trim() ? null : blank);
  // The first text is open for typing from the start (most messages begin with words).
  const selected = chosen === 'first-text' ? firstTextOf(document) : chosen;

  /** A new document: its HTML rendered, the old one kept for Undo (typing in one block coalesces). */
  const commit = useCallback(
    (next: TEmailDocument, key = '') => {
      const previous = latest.current.document ?? document;
      const now = Date.now();
      const entry = history.current;
      if (previous && !(key && key === entry.lastKey && now - entry.lastAt < COALESCE_MS)) {
        entry.past = [...entry.past.slice(-HISTORY_LIMIT + 1), previous];
      }
      entry.future = [];
      entry.lastKey = key;
      entry.lastAt = now;
      onChange({ html: renderEmail(next), document: next });
    },
    [document, onChange],
  );

  const undo = () => {
    const entry = history.current;
    const previous = entry.past.pop();
    if (!previous || !document) return;
    entry.future.push(document);
    entry.lastKey = '';
    onChange({ html: renderEmail(previous), document: previous });
    setAnnouncement('Undone.');
  };
  const redo = () => {
    const entry = history.current;
    const next = entry.future.pop();
    if (!next || !document) return;
    entry.past.push(document);
    entry.lastKey = '';
    onChange({ html: renderEmail(next), document: next });
    setAnnouncement('Redone.');
  };

  const focusInsert = useCallback((insert: (text: string) => void) => {
    insertAt.current = insert;
  }, []);

  const actions = useMemo(() => {
    const current = () => latest.current.document ?? document ?? fresh();
    return {
      select: setSelected,
      move: (blockId: string, by: number) => {
        const doc = current();
        const block = findBlock(doc, blockId);
        const moved = moveBlock(doc, blockId, by);
        commit(moved);
        const { index, count } = positionOf(moved, blockId);
        setAnnouncement(`${block ? blockTitle(block) : 'Block'} moved to position ${index + 1} of ${count}.`);
        // Focus stays on the arrow pressed, or on the other one when the block reached an end.
        requestAnimationFrame(() => {
          const arrow = by < 0 && index === 0 ? 'down' : by > 0 && index === count - 1 ? 'up' : by < 0 ? 'up' : 'down';
          window.document.getElementById(`move-${arrow}-${blockId}`)?.focus();
        });
      },
      moveTo: (blockId: string, index: number) => {
        const moved = moveBlockTo(current(), blockId, index);
        commit(moved);
        const position = positionOf(moved, blockId);
        setAnnouncement(`Block moved to position ${position.index + 1} of ${position.count}.`);
      },
      duplicate: (blockId: string) => commit(duplicateBlock(current(), blockId)),
      remove: (blockId: string) => {
        const doc = current();
        const block = findBlock(doc, blockId);
        commit(removeBlock(doc, blockId));
        setSelected(null);
        setAnnouncement(`${block ? blockTitle(block) : 'Block'} deleted. Undo brings it back.`);
      },
      add: (type: TBlockType, column: string | null, columns?: number) => {
        const doc = current();
        const block = newBlock(type, doc, columns);
        commit(addBlock(doc, block, column));
        setSelected(block.id);
        setAnnouncement(`${blockTitle(block)} added.`);
        requestAnimationFrame(() => window.document.getElementById(`select-${block.id}`)?.focus());
      },
      update: (blockId: string, patch: Partial<TBlock>) =>
        commit(updateBlock(current(), blockId, patch), `${blockId}:${Object.keys(patch).join(',')}`),
      focusInsert,
      textLabel: label,
    };
  }, [commit, document, fresh, focusInsert, label]);

  const insertField = (key: string) => {
    const text = fallback.trim() ? `{{${key}::${fallback.trim()}}}` : `{{${key}}}`;
    if (!insertAt.current) {
      notifications.show({
        color: 'blue',
        message: 'Click into a text, heading or button first: the field goes where the cursor is.',
        position: 'top-center',
      });
      return;
    }
    insertAt.current(text);
  };

  const toHtml = () => {
    setMode('html');
    setSelected(null);
    insertAt.current = null;
  };

  const toVisual = () => {
    const { html, document: previous } = latest.current;
    if (previous) {
      const result = documentFromHtml(html, previous);
      if (result.ok) {
        if (result.changed) commit(result.document);
        setMode('visual');
        insertAt.current = null;
        return;
      }
      modals.openConfirmModal({
        title: 'Your HTML changes cannot all be shown in Visual mode',
        children: (
          <Text size="sm">
            {result.reason === 'frame-changed'
              ? 'You changed the page around the blocks (its head, background or width). Visual mode can show only the blocks: going there puts back the page as the design has it, and those changes are lost. Your changes to the blocks themselves are kept.'
              : 'The block markers were removed, so the HTML cannot be matched to the design. Going to Visual mode puts back the design as it was before your HTML edits.'}
          </Text>
        ),
        labels: { confirm: 'Go to Visual, lose those changes', cancel: 'Stay in HTML' },
        confirmProps: { color: 'red' },
        onConfirm: () => {
          const rows = html.slice(html.indexOf('<!--sw:start-->'), html.lastIndexOf('<!--sw:end-->') + 13);
          const rebuilt = documentFromHtml(
            renderEmail({ ...previous, blocks: [] }).replace('<!--sw:start--><!--sw:end-->', rows),
            previous,
          );
          commit(rebuilt.ok && result.reason === 'frame-changed' ? rebuilt.document : previous);
          setMode('visual');
        },
      });
      return;
    }
    // HTML written by hand, with no design behind it.
    modals.openConfirmModal({
      title: 'Switch this message to Visual mode?',
      children: (
        <Text size="sm">
          This message was written in HTML. In Visual mode it becomes one HTML block, exactly as written, that you can
          build around with other blocks (its page background and width follow the design's settings).
        </Text>
      ),
      labels: { confirm: 'Use my HTML as a block', cancel: 'Stay in HTML' },
      onConfirm: () => {
        const doc = fresh();
        doc.blocks = [{ type: 'html', id: newId(doc), html: bodyOf(html), row: false }];
        commit(doc);
        setMode('visual');
      },
    });
  };

  const importFile = (file: File | null) => {
    if (!file) return;
    if (!isHtmlFile(file)) {
      notifications.show({
        color: 'red',
        title: 'Error',
        message: 'File must be an HTML file (.html or .htm).',
        position: 'top-center',
      });
      return;
    }
    void file.text().then((html) => {
      const replace = () => {
        onChange({ html, document: null });
        setMode('html');
      };
      if (!latest.current.html.trim()) replace();
      else
        modals.openConfirmModal({
          title: 'Replace your message?',
          children: (
            <Text size="sm">
              The file “{file.name}” replaces the message you have written. Undo cannot bring it back.
            </Text>
          ),
          labels: { confirm: 'Replace', cancel: 'Keep my message' },
          onConfirm: replace,
        });
    });
  };

  const selectedBlock = document && selected ? findBlock(document, selected) : null;
  const fields = [
    ...STANDARD_MERGE_FIELDS.map((field) => ({ key: field.key, label: field.label })),
    ...variables
      .filter((name) => !STANDARD_MERGE_FIELDS.some((field) => field.key === name))
      .map((name) => ({ key: name, label: name })),
  ];
  const importId = `${id ?? 'email-editor'}-import`;

  return (
    <Stack gap="xs" data-testid="email-editor" id={id} tabIndex={-1}>
      <Group justify="space-between" gap="xs">
        <SegmentedControl
          size="xs"
          aria-label={`${label}: editing mode`}
          value={mode}
          onChange={(next) => (next === 'html' ? toHtml() : toVisual())}
          data={[
            { value: 'visual', label: 'Visual' },
            { value: 'html', label: 'HTML' },
          ]}
        />
        <Group gap={6}>
          {mode === 'visual' && (
            <>
              <HistoryButton
                label="Undo"
                icon={IconArrowBackUp}
                onClick={undo}
                disabled={history.current.past.length === 0}
              />
              <HistoryButton
                label="Redo"
                icon={IconArrowForwardUp}
                onClick={redo}
                disabled={history.current.future.length === 0}
              />
            </>
          )}
          <Menu closeOnItemClick withinPortal position="bottom-end">
            <Menu.Target>
              <Button
                variant="default"
                size="xs"
                leftSection={<IconBraces size={14} aria-hidden />}
                // The text keeps its cursor while the menu opens.
                onMouseDown={(event) => event.preventDefault()}
              >
                {personaliseLabel}
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <TextInput
                size="xs"
                m={6}
                label="Fallback when empty (optional)"
                placeholder="there"
                value={fallback}
                onChange={(event) => setFallback(event.currentTarget.value)}
              />
              <Menu.Divider />
              {fields.map((field) => (
                <Menu.Item key={field.key} onClick={() => insertField(field.key)}>
                  {field.label} <Text span c="dimmed" size="xs">{`{{${field.key}}}`}</Text>
                </Menu.Item>
              ))}
            </Menu.Dropdown>
          </Menu>
          {!isFragment && (
            <FileButton onChange={importFile} accept=".html,.htm,text/html">
              {(props) => (
                <Button
                  id={importId}
                  variant="default"
                  size="xs"
                  leftSection={<IconFileCode size={14} aria-hidden />}
                  {...props}
                >
                  Import Html
                </Button>
              )}
            </FileButton>
          )}
        </Group>
      </Group>
      {error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
      <VisuallyHidden aria-live="polite" role="status">
        {announcement}
      </VisuallyHidden>
      {mode === 'html' || !document ? (
        <Suspense
          fallback={
            <Text size="sm" c="dimmed">
              Loading the HTML editor…
            </Text>
          }
        >
          <HtmlCodeEditor
            label={`HTML ${label.toLowerCase()}`}
            value={value.html}
            onChange={(html) => onChange({ html, document: latest.current.document })}
            onFocusInsert={focusInsert}
          />
        </Suspense>
      ) : (
        <Grid gap="sm">
          <Grid.Col span={{ base: 12, md: isFragment ? 12 : 8 }}>
            <VisualCanvas document={document} selected={selected} actions={actions} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: isFragment ? 12 : 4 }}>
            <Paper
              withBorder
              p="sm"
              radius="sm"
              component="section"
              aria-label={selectedBlock ? `${blockTitle(selectedBlock)} settings` : 'Design settings'}
            >
              {selectedBlock ? (
                <Stack gap="xs">
                  <Group justify="space-between">
                    <Text fw={600} size="sm">
                      {blockTitle(selectedBlock)}
                    </Text>
                    <Button size="compact-xs" variant="subtle" onClick={() => setSelected(null)}>
                      Done
                    </Button>
                  </Group>
                  <BlockSettings
                    key={selectedBlock.id}
                    block={selectedBlock}
                    onChange={(patch) => actions.update(selectedBlock.id, patch)}
                    onFocusInsert={focusInsert}
                  />
                </Stack>
              ) : (
                <Stack gap="xs">
                  <Group gap={6}>
                    <IconPalette size={16} aria-hidden />
                    <Text fw={600} size="sm">
                      Design
                    </Text>
                  </Group>
                  <Text size="xs" c="dimmed">
                    Choose a block's Edit button to change it; these settings apply to the whole message.
                  </Text>
                  <StyleSettings style={document.style} onChange={(style) => commit({ ...document, style }, 'style')} />
                </Stack>
              )}
            </Paper>
            {!isFragment && (
              <Stack mt="sm">
                <MessageChecks html={value.html} subject={subject} document={document} />
              </Stack>
            )}
          </Grid.Col>
        </Grid>
      )}
      {!isFragment && (mode === 'html' || !document) && (
        <MessageChecks html={value.html} subject={subject} document={value.document} />
      )}
      {mode === 'html' && value.document && (
        <Alert color="gray" p="xs">
          <Text size="xs">
            This message has a visual design. Edits inside its blocks come back to Visual mode as HTML blocks, kept
            exactly as you wrote them.
          </Text>
        </Alert>
      )}
    </Stack>
  );
};

export default EmailEditor;
