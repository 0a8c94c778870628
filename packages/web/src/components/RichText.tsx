import { Input } from '@mantine/core';
import { RichTextEditor } from '@mantine/tiptap';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect, useId } from 'react';

type TProps = {
  label: string;
  value: string;
  onChange: (html: string) => void;
  error?: string | undefined;
  required?: boolean;
  /** Lets a caller insert text at the cursor (the Insert Text Replacement modal). */
  onReady?: (insert: (text: string) => void) => void;
  minHeight?: number;
};

/** Bold, italic, underline, strike: the inline styles every rich-text toolbar here starts with. */
export const TextStyleControls = () => (
  <RichTextEditor.ControlsGroup>
    <RichTextEditor.Bold />
    <RichTextEditor.Italic />
    <RichTextEditor.Underline />
    <RichTextEditor.Strikethrough />
  </RichTextEditor.ControlsGroup>
);

/**
 * A rich-text field (drip bodies, signatures): tiptap through Mantine's editor, HTML in and
 * out. The toolbar is a row of labelled buttons; the editable area is named by the label.
 */
export const RichText = ({ label, value, onChange, error, required, onReady, minHeight = 140 }: TProps) => {
  const id = useId();
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: { openOnClick: false, autolink: true } })],
    content: value,
    immediatelyRender: true,
    onUpdate: ({ editor: current }) => onChange(current.isEmpty ? '' : current.getHTML()),
    editorProps: {
      attributes: {
        'aria-labelledby': `${id}-label`,
        'aria-multiline': 'true',
        role: 'textbox',
        ...(error ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {}),
      },
    },
  });
  // A value set from outside (a template, a loaded draft) replaces what the editor shows.
  useEffect(() => {
    if (editor && value !== (editor.isEmpty ? '' : editor.getHTML()))
      editor.commands.setContent(value, { emitUpdate: false });
  }, [editor, value]);
  useEffect(() => {
    if (editor && onReady) onReady((text) => editor.chain().focus().insertContent(text).run());
  }, [editor, onReady]);
  return (
    <Input.Wrapper
      label={label}
      labelProps={{ id: `${id}-label`, onClick: () => editor?.commands.focus() }}
      required={required}
      error={error}
      errorProps={{ id: `${id}-error` }}
    >
      <RichTextEditor editor={editor} style={{ borderColor: error ? 'var(--mantine-color-error)' : undefined }}>
        <RichTextEditor.Toolbar>
          <TextStyleControls />
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.H2 />
            <RichTextEditor.H3 />
            <RichTextEditor.BulletList />
            <RichTextEditor.OrderedList />
          </RichTextEditor.ControlsGroup>
          <RichTextEditor.ControlsGroup>
            <RichTextEditor.Link />
            <RichTextEditor.Unlink />
          </RichTextEditor.ControlsGroup>
        </RichTextEditor.Toolbar>
        <RichTextEditor.Content style={{ minHeight }} />
      </RichTextEditor>
    </Input.Wrapper>
  );
};
