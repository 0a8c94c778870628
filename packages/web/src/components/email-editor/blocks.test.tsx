import { STARTER_TEMPLATES } from '@sendwell/contracts/email/starters';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { addBlock, duplicateBlock, findBlock, moveBlock, newBlock, removeBlock, starterDocument } from './blocks';
import { SafeText } from './SafeText';

const newsletter = STARTER_TEMPLATES.find((template) => template.key === 'newsletter')!.document;
const ids = (blocks: { id: string }[]) => blocks.map((block) => block.id);

describe('the editor’s operations on a document', () => {
  it('moves a block within its own list, and not past either end', () => {
    const document = starterDocument();
    const [heading, text, footer] = ids(document.blocks);
    expect(ids(moveBlock(document, footer!, -1).blocks)).toEqual([heading, footer, text]);
    expect(moveBlock(document, heading!, -1)).toEqual(document);
    expect(ids(moveBlock(document, heading!, 1).blocks)).toEqual([text, heading, footer]);
  });

  it('moves, duplicates and removes a block inside a column without touching the rest', () => {
    const section = newsletter.blocks.find((block) => block.type === 'section')!;
    if (section.type !== 'section') throw new Error('no section');
    const [first, second] = section.columns[0]!.blocks;
    const moved = moveBlock(newsletter, second!.id, -1);
    const movedSection = moved.blocks.find((block) => block.id === section.id);
    expect(movedSection?.type === 'section' && ids(movedSection.columns[0]!.blocks)).toEqual([second!.id, first!.id]);
    expect(moved.blocks.filter((block) => block.id !== section.id)).toEqual(
      newsletter.blocks.filter((block) => block.id !== section.id),
    );

    const copied = duplicateBlock(newsletter, section.id);
    expect(copied.blocks).toHaveLength(newsletter.blocks.length + 1);
    const copy = copied.blocks[copied.blocks.findIndex((block) => block.id === section.id) + 1]!;
    const allIds = JSON.stringify(copied).match(/"id":"[a-z0-9]+"/g)!;
    expect(new Set(allIds).size).toBe(allIds.length);
    expect(copy.type).toBe('section');

    const removed = removeBlock(newsletter, first!.id);
    expect(findBlock(removed, first!.id)).toBeNull();
    expect(findBlock(removed, second!.id)).not.toBeNull();
  });

  it('adds a block to a column or at the end', () => {
    const document = starterDocument();
    const section = newBlock('section', document, 3);
    const withSection = addBlock(document, section, null);
    expect(withSection.blocks.at(-1)).toBe(section);
    const column = section.type === 'section' ? section.columns[2]!.id : '';
    const image = newBlock('image', withSection);
    const withImage = addBlock(withSection, image, column);
    expect(findBlock(withImage, image.id)).toEqual(image);
  });
});

describe('a text block shown in the canvas (R15)', () => {
  it('keeps the formatting the text editor writes and turns anything else into plain text', () => {
    const { container } = render(
      <SafeText html='<p style="text-align: center">Hi <strong>you</strong> <a href="javascript:alert(1)" onclick="alert(2)">here</a></p><img src="x" onerror="window.__pwned=1"><script>window.__pwned=2</script><object data="x"></object>' />,
    );
    expect(container.querySelector('p')?.getAttribute('style')).toContain('text-align: center');
    expect(container.querySelector('strong')?.textContent).toBe('you');
    expect(container.querySelector('a, img, script, object, [onclick]')).toBeNull();
    expect(container.textContent).toContain('here');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });
});
