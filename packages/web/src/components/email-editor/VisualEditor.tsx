import { ActionIcon, Box, Button, Group, Menu, Paper, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import {
  BLOCK_TITLES,
  type TBlock,
  type TBlockType,
  type TContentBlock,
  type TEmailDocument,
} from '@sendwell/contracts';
import {
  IconArrowDown,
  IconArrowUp,
  IconCopy,
  IconGripVertical,
  IconPhoto,
  IconPlus,
  IconTrash,
} from '@tabler/icons-react';
import { type DragEvent, useState } from 'react';
import { PreviewFrame } from '../PreviewFrame';
import { blockTitle } from './BlockSettings';
import { ADDABLE, COLUMN_ADDABLE } from './blocks';
import { SafeText } from './SafeText';
import { TextBlockEditor } from './TextBlockEditor';

export type TCanvasActions = {
  select: (id: string | null) => void;
  move: (id: string, by: number) => void;
  moveTo: (id: string, index: number) => void;
  duplicate: (id: string) => void;
  remove: (id: string) => void;
  add: (type: TBlockType, column: string | null, columns?: number) => void;
  update: (id: string, patch: Partial<TBlock>) => void;
  focusInsert: (insert: (text: string) => void) => void;
  /** The open text's accessible name (the field's: "Message", "Message Body"). */
  textLabel: string;
};

const AddMenu = ({
  types,
  label,
  onAdd,
}: {
  types: TBlockType[];
  label: string;
  onAdd: (type: TBlockType, columns?: number) => void;
}) => (
  <Menu position="bottom-start" withinPortal>
    <Menu.Target>
      <Button variant="light" size="xs" leftSection={<IconPlus size={14} aria-hidden />}>
        {label}
      </Button>
    </Menu.Target>
    <Menu.Dropdown>
      {types.flatMap((type) =>
        type === 'section'
          ? [1, 2, 3].map((columns) => (
              <Menu.Item key={`section-${columns}`} onClick={() => onAdd('section', columns)}>
                {columns === 1 ? 'Section, one column' : `${columns} columns`}
              </Menu.Item>
            ))
          : [
              <Menu.Item key={type} onClick={() => onAdd(type)}>
                {BLOCK_TITLES[type]}
              </Menu.Item>,
            ],
      )}
    </Menu.Dropdown>
  </Menu>
);

/** An HTML block shown as it is, in a sandboxed frame (R15): no script, no same origin. */
const HtmlView = ({ html, isRow }: { html: string; isRow: boolean }) => (
  <PreviewFrame
    title="HTML block"
    html={isRow ? `<table width="100%">${html}</table>` : html}
    height={120}
    style={{ border: '1px dashed var(--mantine-color-default-border)' }}
  />
);

const BlockView = ({
  block,
  document,
  isSelected,
  actions,
}: {
  block: TBlock;
  document: TEmailDocument;
  isSelected: boolean;
  actions: TCanvasActions;
}) => {
  const { style } = document;
  switch (block.type) {
    case 'heading':
      return (
        <Text ta={block.align} c={block.color ?? style.textColor} fz={[28, 22, 18][block.level - 1]} fw={700} lh={1.25}>
          {block.text || 'Empty heading'}
        </Text>
      );
    case 'text':
      return isSelected ? (
        <TextBlockEditor
          html={block.html}
          label={actions.textLabel}
          onChange={(html) => actions.update(block.id, { html })}
          onFocusInsert={actions.focusInsert}
        />
      ) : (
        <Box c={style.textColor} style={{ lineHeight: 1.6 }}>
          <SafeText html={block.html} />
        </Box>
      );
    case 'image':
      return block.src ? (
        <Box ta={block.align}>
          <img src={block.src} alt={block.alt} style={{ maxWidth: '100%', width: block.width ?? undefined }} />
        </Box>
      ) : (
        <Group justify="center" p="md" bg="var(--mantine-color-default-hover)" c="dimmed" gap={6}>
          <IconPhoto size={18} aria-hidden />
          <Text size="sm">No image yet: choose one in the block's settings.</Text>
        </Group>
      );
    case 'button':
      return (
        <Box ta={block.align}>
          <Box
            component="span"
            display="inline-block"
            px={24}
            py={10}
            fw={700}
            style={{ background: block.background, color: block.color, borderRadius: block.radius }}
          >
            {block.text || 'Button'}
          </Box>
        </Box>
      );
    case 'divider':
      return <Box style={{ borderTop: `${block.thickness}px solid ${block.color}` }} my={6} />;
    case 'spacer':
      return <Box h={block.height} bg="var(--mantine-color-default-hover)" aria-hidden />;
    case 'social':
      return (
        <Text ta={block.align} c={style.linkColor} fw={700} size="sm">
          {block.links.map((link) => link.network).join(' · ') || 'No links yet'}
        </Text>
      );
    case 'html':
      return <HtmlView html={block.html} isRow={block.row} />;
    case 'footer':
      return (
        <Text size="xs" c="dimmed" ta="center">
          {block.text}
          <br />
          {block.address || 'Add your postal address'}
          <br />
          <u>{block.unsubscribeText || 'Unsubscribe'}</u>
        </Text>
      );
    case 'section':
      return (
        <SimpleGrid cols={{ base: 1, sm: block.columns.length }} spacing="xs" bg={block.background ?? undefined} p={4}>
          {block.columns.map((column, index) => (
            <Stack key={column.id} gap={6} p={4} style={{ border: '1px dashed var(--mantine-color-default-border)' }}>
              <Text size="xs" c="dimmed">
                Column {index + 1}
              </Text>
              <BlockList
                blocks={column.blocks}
                document={document}
                column={column.id}
                label={`Column ${index + 1} of ${block.columns.length}`}
                selected={null}
                actions={actions}
              />
              <AddMenu types={COLUMN_ADDABLE} label="Add to column" onAdd={(type) => actions.add(type, column.id)} />
            </Stack>
          ))}
        </SimpleGrid>
      );
  }
};

let dragged: { id: string; column: string | null } | null = null;

/** One list of blocks (the message, or a column) with each block's toolbar. */
export const BlockList = ({
  blocks,
  document,
  column,
  label,
  selected,
  actions,
}: {
  blocks: readonly TBlock[] | readonly TContentBlock[];
  document: TEmailDocument;
  column: string | null;
  label: string;
  selected: string | null;
  actions: TCanvasActions & { selected?: string | null };
}) => {
  const [dropIndex, setDropIndex] = useState<number | null>(null);
  const current = actions.selected ?? selected;
  const onDrop = (event: DragEvent, index: number) => {
    event.preventDefault();
    event.stopPropagation();
    setDropIndex(null);
    if (dragged && dragged.column === column) actions.moveTo(dragged.id, index);
    dragged = null;
  };
  return (
    <Stack component="ol" gap={6} aria-label={label} style={{ listStyle: 'none', padding: 0, margin: 0 }}>
      {blocks.map((block, index) => {
        const title = blockTitle(block);
        const isSelected = current === block.id;
        return (
          <Paper
            key={block.id}
            component="li"
            withBorder
            p={6}
            radius="sm"
            data-block-id={block.id}
            data-testid={`block-${block.type}`}
            style={{
              borderColor: isSelected ? 'var(--mantine-color-blue-6)' : undefined,
              borderWidth: isSelected ? 2 : undefined,
              boxShadow: dropIndex === index ? '0 -3px 0 var(--mantine-color-blue-5)' : undefined,
            }}
            onDragOver={(event: DragEvent) => {
              if (dragged?.column !== column) return;
              event.preventDefault();
              event.stopPropagation();
              setDropIndex(index);
            }}
            onDragLeave={() => setDropIndex(null)}
            onDrop={(event: DragEvent) => onDrop(event, index)}
          >
            <Group gap={4} justify="space-between" mb={4}>
              <Group gap={4} wrap="nowrap">
                <Box
                  draggable
                  onDragStart={(event: DragEvent) => {
                    event.stopPropagation();
                    dragged = { id: block.id, column };
                    event.dataTransfer.effectAllowed = 'move';
                    event.dataTransfer.setData('text/plain', block.id);
                  }}
                  onDragEnd={() => {
                    dragged = null;
                    setDropIndex(null);
                  }}
                  style={{ cursor: 'grab', display: 'flex' }}
                  aria-hidden
                  title="Drag to move (or use the arrows)"
                >
                  <IconGripVertical size={16} />
                </Box>
                <UnstyledButton
                  id={`select-${block.id}`}
                  onClick={() => actions.select(isSelected ? null : block.id)}
                  aria-pressed={isSelected}
                  aria-label={`Edit ${title}, block ${index + 1} of ${blocks.length}`}
                  fz="sm"
                  fw={600}
                  px={4}
                >
                  {title}
                </UnstyledButton>
              </Group>
              <Group gap={4} role="group" aria-label={`${title} block`}>
                <ActionIcon
                  id={`move-up-${block.id}`}
                  variant="subtle"
                  size="md"
                  aria-label={`Move ${title} up`}
                  disabled={index === 0}
                  onClick={() => actions.move(block.id, -1)}
                >
                  <IconArrowUp size={16} aria-hidden />
                </ActionIcon>
                <ActionIcon
                  id={`move-down-${block.id}`}
                  variant="subtle"
                  size="md"
                  aria-label={`Move ${title} down`}
                  disabled={index === blocks.length - 1}
                  onClick={() => actions.move(block.id, 1)}
                >
                  <IconArrowDown size={16} aria-hidden />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  size="md"
                  aria-label={`Duplicate ${title}`}
                  onClick={() => actions.duplicate(block.id)}
                >
                  <IconCopy size={16} aria-hidden />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="md"
                  aria-label={`Delete ${title}`}
                  onClick={() => actions.remove(block.id)}
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
            </Group>
            {/* A click on a block's content selects it, as its Edit button does by keyboard. */}
            {/* biome-ignore lint/a11y/noStaticElementInteractions: the Edit button above is the keyboard way. */}
            {/* biome-ignore lint/a11y/useKeyWithClickEvents: the Edit button above is the keyboard way. */}
            <div onClick={() => !isSelected && block.type !== 'section' && actions.select(block.id)}>
              <BlockView block={block} document={document} isSelected={isSelected} actions={actions} />
            </div>
          </Paper>
        );
      })}
    </Stack>
  );
};

/** The canvas: the message's blocks in order, with the menu that adds one. */
export const VisualCanvas = ({
  document,
  selected,
  actions,
}: {
  document: TEmailDocument;
  selected: string | null;
  actions: TCanvasActions;
}) => (
  <Box p="sm" style={{ background: document.style.background, borderRadius: 4 }}>
    <Box maw={document.style.width} mx="auto" p="xs" style={{ background: document.style.contentBackground }}>
      {document.blocks.length === 0 ? (
        <Text c="dimmed" size="sm" ta="center" py="lg">
          No blocks yet: add the first one below.
        </Text>
      ) : (
        <BlockList
          blocks={document.blocks}
          document={document}
          column={null}
          label="Blocks of the message"
          selected={selected}
          actions={{ ...actions, selected }}
        />
      )}
      <Group mt="sm">
        <AddMenu
          types={document.kind === 'fragment' ? ADDABLE.filter((type) => type !== 'footer') : ADDABLE}
          label="Add a block"
          onAdd={(type, columns) => actions.add(type, null, columns)}
        />
      </Group>
    </Box>
  </Box>
);
