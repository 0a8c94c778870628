import { Box, Group, Text } from '@mantine/core';
import { IconArrowsHorizontal } from '@tabler/icons-react';
import { type CSSProperties, type ReactNode, useCallback, useEffect, useRef, useState } from 'react';

/** Whether there is more table past each edge, and how wide the visible part is. */
type TEdges = { left: boolean; right: boolean; width: number };

/** Shadows that say there is more table past an edge (they take no clicks). */
const edgeShadow = (side: 'left' | 'right') =>
  ({
    position: 'absolute',
    top: 0,
    bottom: 0,
    [side]: 0,
    width: 14,
    pointerEvents: 'none',
    background: `linear-gradient(to ${side === 'left' ? 'right' : 'left'}, rgba(0, 0, 0, 0.16), rgba(0, 0, 0, 0))`,
  }) as const;

/**
 * What a column pinned with `position: sticky` (a table's actions) looks like while cells
 * scroll under it: opaque (a selected row's tint laid over the page colour), with a shadow on
 * its left. While nothing scrolls it is transparent, so row hover and selection show as usual.
 */
const PINNED_WHILE_SCROLLING = {
  '--pinned-column-bg': 'var(--mantine-color-body)',
  '--pinned-column-selected-bg':
    'linear-gradient(var(--mantine-primary-color-light), var(--mantine-primary-color-light)), var(--mantine-color-body)',
  '--pinned-column-edge': '-8px 0 8px -8px rgba(0, 0, 0, 0.3)',
} as CSSProperties;

/**
 * The box a table scrolls sideways in when it is wider than the screen (a phone), so the page
 * itself never is (WCAG 1.4.10). While it scrolls it says so: a line above it ("Scroll
 * sideways for more"), a shadow on each edge with more past it, and it takes the keyboard
 * focus as a named region, so the arrow keys scroll it too (axe scrollable-region-focusable).
 * A table that fits shows none of it. A pinned column takes its look from the variables above;
 * `--table-scroller-width` is the visible width, for content that should stay in view (an
 * expanded row's details) while the table scrolls.
 */
export const TableScroller = ({ label, children }: { label?: string | undefined; children: ReactNode }) => {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState<TEdges>({ left: false, right: false, width: 0 });

  const measure = useCallback(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    // A pixel of slack: zoomed pages report fractional widths.
    const left = scroller.scrollLeft > 1;
    const right = scroller.scrollLeft + scroller.clientWidth < scroller.scrollWidth - 1;
    const width = scroller.clientWidth;
    setEdges((current) =>
      current.left === left && current.right === right && current.width === width ? current : { left, right, width },
    );
  }, []);

  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    measure();
    // The box changes with the window; the table inside with its rows (a page loaded, a row expanded).
    const observer = new ResizeObserver(measure);
    observer.observe(scroller);
    if (scroller.firstElementChild) observer.observe(scroller.firstElementChild);
    return () => observer.disconnect();
  }, [measure]);

  const isScrollable = edges.left || edges.right;
  return (
    <Box>
      {isScrollable && (
        <Group gap={4} justify="flex-end" mb={4} data-testid="scroll-cue">
          <IconArrowsHorizontal size={14} aria-hidden color="var(--mantine-color-dimmed)" />
          <Text size="xs" c="dimmed">
            Scroll sideways for more
          </Text>
        </Group>
      )}
      <Box pos="relative">
        <Box
          ref={scrollerRef}
          onScroll={measure}
          data-scrolls-sideways
          className="mantine-focus-auto"
          // Positioned, so what a table positions absolutely (visually hidden header text) is
          // placed and clipped inside it; else it would widen the page past the scroller.
          style={{
            position: 'relative',
            overflowX: 'auto',
            ...(isScrollable ? { ...PINNED_WHILE_SCROLLING, '--table-scroller-width': `${edges.width}px` } : {}),
          }}
          {...(isScrollable
            ? { tabIndex: 0, role: 'region', 'aria-label': label ? `${label} (scrolls sideways)` : 'Scrolls sideways' }
            : {})}
        >
          {children}
        </Box>
        {edges.left && <Box aria-hidden style={edgeShadow('left')} />}
        {edges.right && <Box aria-hidden style={edgeShadow('right')} />}
      </Box>
    </Box>
  );
};
