import { useEffect } from 'react';

/**
 * A menu item's action starts from its menu's button: focus moves back to the button as the
 * item is chosen, before the item's own handler runs. So a dialog opened from a row menu
 * (Import CSV, Edit, Delete) remembers the button and gives focus back to it when it closes;
 * Mantine's modal remembers whatever had focus as it opened, the clicked item, which is gone
 * from the page by then, and focus fell to the top of the page. Every menu at once, in the
 * capture phase, so it runs before React's handlers; Enter and Space on an item click it too.
 */
export const useMenuItemsFocusTheirButton = () =>
  useEffect(() => {
    const focusMenuButton = (event: MouseEvent) => {
      if (!(event.target instanceof Element)) return;
      const dropdown = event.target.closest('[data-menu-item]')?.closest('[data-menu-dropdown]');
      if (!dropdown?.id) return;
      document
        .querySelector<HTMLElement>(`[aria-controls="${CSS.escape(dropdown.id)}"]`)
        ?.focus({ preventScroll: true });
    };
    document.addEventListener('click', focusMenuButton, true);
    return () => document.removeEventListener('click', focusMenuButton, true);
  }, []);
