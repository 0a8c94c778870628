import { TAG_MESSAGES } from '@sendwell/contracts';
import { fireEvent, screen } from '@testing-library/react';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { renderWithApp } from '../test/render';
import { TagInput } from './TagInput';

const Addresses = ({ limit }: { limit?: number }) => {
  const [tags, setTags] = useState<string[]>([]);
  return (
    <>
      <TagInput label="Addresses" value={tags} onChange={setTags} validator="email" limit={limit} />
      <output data-testid="tags">{tags.join('|')}</output>
    </>
  );
};

const field = () => screen.getByRole('textbox', { name: 'Addresses' });
const type = (text: string) => fireEvent.change(field(), { target: { value: text } });
const press = (key: string) => fireEvent.keyDown(field(), { key });
const tags = () => screen.getByTestId('tags').textContent;

describe('TagInput', () => {
  it('adds a tag on Enter, a comma or Tab, as the validator reads it', () => {
    renderWithApp(<Addresses />);
    type('ann@example.com');
    press('Enter');
    type('Bob <bob@example.com>');
    press(',');
    type('cat@example.com');
    press('Tab');
    expect(tags()).toBe('ann@example.com|bob@example.com|cat@example.com');
    expect(field()).toHaveProperty('value', '');
    expect(screen.getByRole('button', { name: 'Remove bob@example.com' })).toBeTruthy();
  });

  it('keeps a refused tag typed, with why: not valid, already there, past the limit', () => {
    renderWithApp(<Addresses limit={2} />);
    type('ann@');
    press('Enter');
    expect(tags()).toBe('');
    expect(field()).toHaveProperty('value', 'ann@');
    expect(screen.getByText(TAG_MESSAGES.email)).toBeTruthy();
    type('ann@example.com');
    press('Enter');
    type('ANN@example.com');
    press('Enter');
    expect(screen.getByText(TAG_MESSAGES.duplicate)).toBeTruthy();
    type('bob@example.com');
    press('Enter');
    type('cat@example.com');
    press('Enter');
    expect(screen.getByText(TAG_MESSAGES.limit)).toBeTruthy();
    expect(tags()).toBe('ann@example.com|bob@example.com');
  });

  it('splits pasted text, and takes the last tag back with Backspace or its remove button', () => {
    renderWithApp(<Addresses />);
    fireEvent.paste(field(), { clipboardData: { getData: () => 'a@example.com, b@example.com;\nc@example.com' } });
    expect(tags()).toBe('a@example.com|b@example.com|c@example.com');
    press('Backspace');
    expect(tags()).toBe('a@example.com|b@example.com');
    fireEvent.click(screen.getByRole('button', { name: 'Remove a@example.com' }));
    expect(tags()).toBe('b@example.com');
  });
});
