import { Pill, PillsInput } from '@mantine/core';
import { acceptTag, type TTagValidator } from '@sendwell/contracts';
import { type ClipboardEvent, type KeyboardEvent, useState } from 'react';

/**
 * The tag input (drip spec §5): a tag is added on Enter, a comma or Tab when it passes the
 * validator, is not there already and keeps within the limit (`acceptTag` in contracts);
 * otherwise it stays typed, with the reason. Pasted text is split at commas, semicolons and
 * line breaks. Each tag has its own remove button; Backspace in an empty field takes the last.
 */
export const TagInput = ({
  label,
  description,
  placeholder,
  value,
  onChange,
  validator,
  limit,
}: {
  label: string;
  description?: string;
  placeholder?: string;
  value: string[];
  onChange: (tags: string[]) => void;
  validator?: TTagValidator;
  limit?: number;
}) => {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  /** Adds each piece it can; keeps the first it cannot, with why. Answers whether all went in. */
  const add = (pieces: string[]) => {
    let tags = value;
    let left: string | null = null;
    let reason: string | null = null;
    for (const piece of pieces.map((part) => part.trim()).filter(Boolean)) {
      const accepted = acceptTag(tags, piece, { validator, limit });
      if (accepted.tag === null) {
        left ??= piece;
        reason ??= accepted.problem;
      } else {
        tags = [...tags, accepted.tag];
      }
    }
    if (tags !== value) onChange(tags);
    setText(left ?? '');
    setProblem(reason);
    return left === null;
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add([text]);
    } else if (event.key === 'Tab' && text.trim() && !event.shiftKey) {
      // Accepted, the field keeps the focus for the next one; refused, Tab moves on as ever.
      if (add([text])) event.preventDefault();
    } else if (event.key === 'Backspace' && text === '' && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const pasted = event.clipboardData.getData('text');
    if (!/[,;\n]/.test(pasted)) return;
    event.preventDefault();
    add(pasted.split(/[,;\n]+/));
  };

  return (
    <PillsInput label={label} description={description} error={problem}>
      <Pill.Group>
        {value.map((tag) => (
          <Pill
            key={tag}
            withRemoveButton
            onRemove={() => onChange(value.filter((other) => other !== tag))}
            // Mantine hides the button from keyboards and screen readers (Backspace instead): here it is a button of its own.
            removeButtonProps={{ 'aria-label': `Remove ${tag}`, 'aria-hidden': false, tabIndex: 0 }}
          >
            {tag}
          </Pill>
        ))}
        <PillsInput.Field
          value={text}
          placeholder={placeholder}
          onChange={(event) => {
            setText(event.currentTarget.value);
            setProblem(null);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onBlur={() => text.trim() && add([text])}
          aria-invalid={problem !== null}
        />
      </Pill.Group>
    </PillsInput>
  );
};
