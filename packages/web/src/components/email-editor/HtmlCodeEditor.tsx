import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { html } from '@codemirror/lang-html';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'react';

type TProps = {
  value: string;
  onChange: (value: string) => void;
  label: string;
  id?: string;
  onFocusInsert: (insert: (text: string) => void) => void;
};

/**
 * The HTML mode's code editor (CodeMirror 6): highlighting, line numbers, undo. Tab is left to
 * the browser (no indentWithTab), so a keyboard user can always leave the editor.
 */
export const HtmlCodeEditor = ({ value, onChange, label, id, onFocusInsert }: TProps) => {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ onChange, onFocusInsert });
  latest.current = { onChange, onFocusInsert };

  // The editor is made once; later values arrive through the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above.
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          html({ autoCloseTags: false }),
          syntaxHighlighting(defaultHighlightStyle),
          EditorView.lineWrapping,
          // tabindex: the content is focusable already (contenteditable); said outright, axe sees it too.
          EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0', ...(id ? { id } : {}) }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
            if (update.focusChanged && update.view.hasFocus) {
              latest.current.onFocusInsert((text) => {
                const { from, to } = update.view.state.selection.main;
                update.view.dispatch({
                  changes: { from, to, insert: text },
                  selection: { anchor: from + text.length },
                });
                update.view.focus();
              });
            }
          }),
          EditorView.theme({
            '&': { fontSize: '13px', border: '1px solid var(--mantine-color-default-border)', borderRadius: '4px' },
            // Focus shows as the inputs around it show theirs: a border in the primary colour.
            '&.cm-focused': { outline: 'none', borderColor: 'var(--mantine-primary-color-filled)' },
            '.cm-scroller': {
              fontFamily: 'var(--mantine-font-family-monospace)',
              maxHeight: '560px',
              minHeight: '320px',
            },
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div ref={host} data-testid="html-code-editor" />;
};

export default HtmlCodeEditor;
