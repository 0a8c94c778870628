import { createTheme } from '@mantine/core';

const fontFamily = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 6, dark: 5 },
  defaultRadius: 'md',
  fontFamily,
  headings: { fontFamily, fontWeight: '650' },
  cursorType: 'pointer',
});
