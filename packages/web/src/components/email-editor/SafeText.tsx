import { createElement, type ReactNode } from 'react';

/**
 * A text block's HTML shown in the editor's canvas without ever becoming live markup (R15):
 * parsed by an inert DOMParser (no script runs, nothing loads), then only the tags and
 * attributes the text editor writes come back, as React elements. Anything else shows as its
 * text. The message itself is shown as HTML only in the sandboxed preview.
 */
const TAGS = new Set(['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'a', 'ul', 'ol', 'li', 'span', 'h1', 'h2', 'h3']);

const styleOf = (element: Element) => {
  const style: Record<string, string> = {};
  const align = (element as HTMLElement).style?.textAlign;
  const color = (element as HTMLElement).style?.color;
  if (align && /^(left|center|right|justify)$/.test(align)) style.textAlign = align;
  if (color && /^(#[0-9a-f]{3,8}|rgb\([\d, ]+\))$/i.test(color)) style.color = color;
  return Object.keys(style).length > 0 ? style : undefined;
};

const toReact = (node: Node, key: number): ReactNode => {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const element = node as Element;
  const children = Array.from(element.childNodes, (child, index) => toReact(child, index));
  const tag = element.tagName.toLowerCase();
  if (!TAGS.has(tag)) return createElement('span', { key }, ...children);
  // Links are shown, never followed from the editor.
  const props: Record<string, unknown> = { key, style: styleOf(element) };
  if (tag === 'a') props.title = element.getAttribute('href') ?? undefined;
  return createElement(tag === 'a' ? 'u' : tag, props, ...(tag === 'br' ? [] : children));
};

export const SafeText = ({ html }: { html: string }) => {
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  return <>{Array.from(parsed.body.childNodes, (node, index) => toReact(node, index))}</>;
};
