import { ActionIcon, Popover } from '@mantine/core';
import { IconDots } from '@tabler/icons-react';
import { type ReactNode, useState } from 'react';

/**
 * A row's actions behind one button, for phones: the table scrolls sideways there, and the
 * Actions column stays pinned to its right edge, small enough to leave the row readable. The
 * popover holds the column's own buttons and links, so what they do and how they are named
 * stays the screen's; choosing one closes it.
 */
export const RowActions = ({ label, children }: { label: string; children: ReactNode }) => {
  const [isOpened, setOpened] = useState(false);
  return (
    <Popover
      opened={isOpened}
      onChange={setOpened}
      position="bottom-end"
      shadow="md"
      trapFocus
      returnFocus
      withinPortal
    >
      <Popover.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="lg"
          aria-label={`Actions for ${label}`}
          onClick={() => setOpened((opened) => !opened)}
        >
          <IconDots size={18} aria-hidden />
        </ActionIcon>
      </Popover.Target>
      {/* A dialog named by its button (Mantine sets role, aria-labelledby, and the button's aria-expanded). */}
      <Popover.Dropdown
        maw="calc(100vw - 24px)"
        p="xs"
        // The dropdown is portalled out of the row, but React still bubbles its clicks to the
        // row (whose click may open the row). A chosen action closes the menu.
        onClick={(event) => {
          event.stopPropagation();
          if (event.target instanceof Element && event.target.closest('button, a')) setOpened(false);
        }}
      >
        {children}
      </Popover.Dropdown>
    </Popover>
  );
};
