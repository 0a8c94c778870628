import type { ComboboxProps } from '@mantine/core';

/**
 * Mantine keeps a closed select's option list in the page (hidden), labelled like its input.
 * Two elements then answer to the field's label, for screen-reader users' element lists and for
 * tests (`getByLabel('Mailing lists')`); the list is only built while open.
 */
export const OPTIONS_WHILE_OPEN: ComboboxProps = { keepMounted: false };
