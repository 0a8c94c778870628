import {
  ActionIcon,
  Button,
  ColorInput,
  Group,
  NumberInput,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import {
  BLOCK_TITLES,
  FONT_STACKS,
  SOCIAL_LABELS,
  SOCIAL_NETWORKS,
  type TBlock,
  type TEmailStyle,
} from '@sendwell/contracts';
import { IconPhoto, IconPlus, IconTrash } from '@tabler/icons-react';
import { type ChangeEvent, useState } from 'react';
import { MediaPicker } from './MediaPicker';

type TInsertTarget = (insert: (text: string) => void) => void;

const ALIGN_DATA = [
  { value: 'left', label: 'Left' },
  { value: 'center', label: 'Centre' },
  { value: 'right', label: 'Right' },
];

const Align = ({ value, onChange }: { value: string; onChange: (value: 'left' | 'center' | 'right') => void }) => (
  <Stack gap={4}>
    <Text size="sm" fw={500} id="block-align-label">
      Alignment
    </Text>
    <SegmentedControl
      aria-labelledby="block-align-label"
      size="xs"
      data={ALIGN_DATA}
      value={value}
      onChange={(next) => onChange(next as 'left' | 'center' | 'right')}
    />
  </Stack>
);

const Color = ({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) => (
  <ColorInput
    label={label}
    value={value}
    format="hex"
    withEyeDropper={false}
    onChange={(next) => {
      if (/^#[0-9a-fA-F]{6}$/.test(next)) onChange(next.toLowerCase());
    }}
  />
);

/** The names of a block's fields that hold `Value` (a button's text, a spacer's height). */
type TFieldOf<Block, Value> = { [Key in keyof Block]: Block[Key] extends Value ? Key : never }[keyof Block] & string;

/**
 * Binds an input to one field of the selected block: its value, and a change that patches that
 * field alone. A number input left empty changes nothing; a text field the Personalise menu can
 * insert into takes the insert while it has the focus.
 */
const blockFields = (onChange: (patch: Partial<TBlock>) => void, onFocusInsert: TInsertTarget) => {
  // The field's name is checked by the binders' types; the patch object cannot name it statically.
  const patch = (field: string, value: string | number) => onChange({ [field]: value } as Partial<TBlock>);
  const text = <Block extends TBlock>(block: Block, field: TFieldOf<Block, string>) => ({
    value: block[field] as string,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => patch(field, event.currentTarget.value),
  });
  return {
    text,
    insertable: <Block extends TBlock>(block: Block, field: TFieldOf<Block, string>) => ({
      ...text(block, field),
      onFocus: () => onFocusInsert((inserted) => patch(field, `${block[field]}${inserted}`)),
    }),
    number: <Block extends TBlock>(block: Block, field: TFieldOf<Block, number>) => ({
      value: block[field] as number,
      onChange: (value: string | number) => {
        if (typeof value === 'number') patch(field, value);
      },
    }),
  };
};

/** The inputs of the selected block (the canvas shows it; these change it). */
export const BlockSettings = ({
  block,
  onChange,
  onFocusInsert,
}: {
  block: TBlock;
  onChange: (patch: Partial<TBlock>) => void;
  onFocusInsert: TInsertTarget;
}) => {
  const [isPicking, setIsPicking] = useState(false);
  const field = blockFields(onChange, onFocusInsert);
  switch (block.type) {
    case 'heading':
      return (
        <Stack>
          <TextInput label="Heading text" {...field.insertable(block, 'text')} />
          <Select
            label="Level"
            data={[
              { value: '1', label: 'Large (H1)' },
              { value: '2', label: 'Medium (H2)' },
              { value: '3', label: 'Small (H3)' },
            ]}
            value={String(block.level)}
            onChange={(level) => level && onChange({ level: Number(level) as 1 | 2 | 3 })}
            allowDeselect={false}
          />
          <Align value={block.align} onChange={(align) => onChange({ align })} />
          <Switch
            label="Own colour"
            checked={block.color !== null}
            onChange={(event) => onChange({ color: event.currentTarget.checked ? '#1f2933' : null })}
          />
          {block.color !== null && (
            <Color label="Heading colour" value={block.color} onChange={(color) => onChange({ color })} />
          )}
        </Stack>
      );
    case 'text':
      return (
        <Text size="sm">
          Write in the block itself: the toolbar above it sets bold, italic, links, lists, alignment and colour.
        </Text>
      );
    case 'image':
      return (
        <Stack>
          <Button
            variant="default"
            leftSection={<IconPhoto size={16} aria-hidden />}
            onClick={() => setIsPicking(true)}
          >
            Upload or choose an image
          </Button>
          <TextInput label="Image address (URL)" placeholder="https://" {...field.text(block, 'src')} />
          <TextInput
            label="Alternative text"
            description="What the image shows, for screen readers and when images are off."
            {...field.text(block, 'alt')}
          />
          <TextInput label="Link (optional)" placeholder="https://" {...field.text(block, 'href')} />
          <NumberInput
            label="Width in pixels (empty: the whole column)"
            min={16}
            max={800}
            value={block.width ?? ''}
            onChange={(width) => onChange({ width: typeof width === 'number' ? width : null })}
          />
          <Align value={block.align} onChange={(align) => onChange({ align })} />
          <MediaPicker
            opened={isPicking}
            onClose={() => setIsPicking(false)}
            onPick={(media) => onChange({ src: media.url, alt: block.alt || media.name.replace(/\.[a-z]+$/i, '') })}
          />
        </Stack>
      );
    case 'button':
      return (
        <Stack>
          <TextInput label="Button text" {...field.insertable(block, 'text')} />
          <TextInput label="Link" {...field.text(block, 'href')} />
          <Color label="Button colour" value={block.background} onChange={(background) => onChange({ background })} />
          <Color label="Text colour" value={block.color} onChange={(color) => onChange({ color })} />
          <NumberInput label="Corner radius (px)" min={0} max={40} {...field.number(block, 'radius')} />
          <Align value={block.align} onChange={(align) => onChange({ align })} />
        </Stack>
      );
    case 'divider':
      return (
        <Stack>
          <Color label="Line colour" value={block.color} onChange={(color) => onChange({ color })} />
          <NumberInput label="Thickness (px)" min={1} max={10} {...field.number(block, 'thickness')} />
        </Stack>
      );
    case 'spacer':
      return <NumberInput label="Height (px)" min={4} max={200} {...field.number(block, 'height')} />;
    case 'social':
      return (
        <Stack>
          {block.links.map((link, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: links have no id; a link's inputs are its place in the list.
            <Group key={index} align="flex-end" wrap="nowrap" gap="xs">
              <Select
                label="Network"
                w={130}
                data={SOCIAL_NETWORKS.map((network) => ({ value: network, label: SOCIAL_LABELS[network] }))}
                value={link.network}
                allowDeselect={false}
                onChange={(network) =>
                  network &&
                  onChange({
                    links: block.links.map((other, at) =>
                      at === index ? { ...other, network: network as typeof link.network } : other,
                    ),
                  })
                }
              />
              <TextInput
                label="Address"
                style={{ flex: 1 }}
                value={link.url}
                onChange={(event) => {
                  const url = event.currentTarget.value;
                  onChange({ links: block.links.map((other, at) => (at === index ? { ...other, url } : other)) });
                }}
              />
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Remove the ${SOCIAL_LABELS[link.network]} link`}
                onClick={() => onChange({ links: block.links.filter((_, at) => at !== index) })}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            </Group>
          ))}
          {block.links.length < 8 && (
            <Button
              variant="default"
              size="xs"
              leftSection={<IconPlus size={14} aria-hidden />}
              onClick={() => onChange({ links: [...block.links, { network: 'website', url: 'https://' }] })}
            >
              Add a link
            </Button>
          )}
          <Align value={block.align} onChange={(align) => onChange({ align })} />
        </Stack>
      );
    case 'html':
      return (
        <Textarea
          label="HTML"
          description="Written into the email as it is. Scripts, forms and frames do not work in email."
          autosize
          minRows={6}
          maxRows={20}
          spellCheck={false}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 12 } }}
          {...field.insertable(block, 'html')}
        />
      );
    case 'footer':
      return (
        <Stack>
          <Textarea label="Why they get this email" autosize {...field.text(block, 'text')} />
          <TextInput
            label="Your postal address"
            description="CAN-SPAM and Gmail's and Yahoo's bulk-sender rules ask for it."
            {...field.text(block, 'address')}
          />
          <TextInput label="Unsubscribe link text" {...field.text(block, 'unsubscribeText')} />
        </Stack>
      );
    case 'section':
      return (
        <Stack>
          <Text size="sm">
            {block.columns.length} column{block.columns.length === 1 ? '' : 's'} side by side; on a phone they stack.
            Add blocks to each column in the canvas.
          </Text>
          <Switch
            label="Background colour"
            checked={block.background !== null}
            onChange={(event) => onChange({ background: event.currentTarget.checked ? '#f0f4f8' : null })}
          />
          {block.background !== null && (
            <Color
              label="Section background"
              value={block.background}
              onChange={(background) => onChange({ background })}
            />
          )}
        </Stack>
      );
  }
};

/** The global style: width, backgrounds, font, text and link colours. */
export const StyleSettings = ({ style, onChange }: { style: TEmailStyle; onChange: (style: TEmailStyle) => void }) => (
  <Stack>
    <NumberInput
      label="Width (px)"
      min={480}
      max={800}
      step={10}
      value={style.width}
      onChange={(width) => typeof width === 'number' && width >= 480 && width <= 800 && onChange({ ...style, width })}
    />
    <Select
      label="Font"
      data={Object.keys(FONT_STACKS).map((font) => ({
        value: font,
        label: FONT_STACKS[font as keyof typeof FONT_STACKS].split(',')[0]!.replace(/'/g, ''),
      }))}
      value={style.font}
      allowDeselect={false}
      onChange={(font) => font && onChange({ ...style, font: font as TEmailStyle['font'] })}
    />
    <Color
      label="Page background"
      value={style.background}
      onChange={(background) => onChange({ ...style, background })}
    />
    <Color
      label="Content background"
      value={style.contentBackground}
      onChange={(contentBackground) => onChange({ ...style, contentBackground })}
    />
    <Color label="Text colour" value={style.textColor} onChange={(textColor) => onChange({ ...style, textColor })} />
    <Color label="Link colour" value={style.linkColor} onChange={(linkColor) => onChange({ ...style, linkColor })} />
  </Stack>
);

export const blockTitle = (block: TBlock) =>
  block.type === 'section' ? `${block.columns.length} columns` : BLOCK_TITLES[block.type];
