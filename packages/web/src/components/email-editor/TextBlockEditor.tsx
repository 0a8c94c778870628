import { RichTextEditor } from '@mantine/tiptap';
import { TextAlign } from '@tiptap/extension-text-align';
import { Color, TextStyle } from '@tiptap/extension-text-style';
import { useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useEffect } from 'react';
import { TextStyleControls } from '../RichText';
import './email-editor.css';

type TProps = {
  html: string;
  label: string;
  onChange: (html: string) => void;
  /** Called with an insert-at-cursor function when the text gets focus (the Personalise menu). */
  onFocusInsert: (insert: (text: string) => void) => void;
};

const COLORS = ['#1f2933', '#52606d', '#1c64d1', '#0e7a3f', '#b45309', '#c81e1e', '#7c3aed', '#ffffff'];

/** A text block's rich text: bold, italic, links, lists, alignment, colour (tiptap, HTML in and out). */
export const TextBlockEditor = ({ html, label, onChange, onFocusInsert }: TProps) => {
  const editor = useEditor({
    extensions: [
      StarterKit.configure({
        link: { openOnClick: false, autolink: true },
        heading: { levels: [2, 3] },
        code: false,
        codeBlock: false,
        blockquote: false,
        horizontalRule: false,
      }),
      TextStyle,
      Color,
      TextAlign.configure({ types: ['heading', 'paragraph'] }),
    ],
    content: html,
    // Made after mount, not during render: a render React throws away (the lazy chunk arriving,
    // a query settling) must not leave an editor behind that a later effect then reads.
    immediatelyRender: false,
    onUpdate: ({ editor: current }) => onChange(current.isEmpty ? '' : current.getHTML()),
    onFocus: ({ editor: current }) => onFocusInsert((text) => current.chain().focus().insertContent(text).run()),
    editorProps: { attributes: { 'aria-label': label, 'aria-multiline': 'true', role: 'textbox' } },
  });
  useEffect(() => {
    if (editor && !editor.isDestroyed && html !== (editor.isEmpty ? '' : editor.getHTML()))
      editor.commands.setContent(html, { emitUpdate: false });
  }, [editor, html]);
  return (
    <RichTextEditor editor={editor} className="sw-text-editor">
      <RichTextEditor.Toolbar>
        <TextStyleControls />
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.BulletList />
          <RichTextEditor.OrderedList />
          <RichTextEditor.Link />
          <RichTextEditor.Unlink />
        </RichTextEditor.ControlsGroup>
        <RichTextEditor.ControlsGroup>
          <RichTextEditor.AlignLeft />
          <RichTextEditor.AlignCenter />
          <RichTextEditor.AlignRight />
        </RichTextEditor.ControlsGroup>
        <RichTextEditor.ColorPicker colors={COLORS} />
        <RichTextEditor.UnsetColor />
      </RichTextEditor.Toolbar>
      <RichTextEditor.Content style={{ minHeight: 80 }} />
    </RichTextEditor>
  );
};

export default TextBlockEditor;
