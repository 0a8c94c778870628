import {
  Anchor,
  Badge,
  CloseButton,
  type CloseButtonProps,
  type CSSVariablesResolver,
  createTheme,
  DEFAULT_THEME,
  darken,
  getPrimaryShade,
  isVirtualColor,
  Loader,
  type LoaderProps,
  luminance,
  type MantineColorsTuple,
  type MantineTheme,
  Menu,
  Modal,
} from '@mantine/core';

const fontFamily = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

/**
 * Mantine's grays with shade 6 darkened from #868e96 (3.3:1 on white) to #5c636a (6.1:1 on
 * white, 5.1:1 on gray-2, 4.8:1 on a selected row's indigo-1): dimmed text and the secondary
 * text in Mantine's own styles (toast descriptions, switch labels) use gray-6.
 */
const gray = DEFAULT_THEME.colors.gray.map((shade, index) =>
  index === 6 ? '#5c636a' : shade,
) as unknown as MantineColorsTuple;

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 6, dark: 5 },
  defaultRadius: 'md',
  fontFamily,
  headings: { fontFamily, fontWeight: '650' },
  cursorType: 'pointer',
  colors: { gray },
  // Modals, menus and toasts appear without motion for people who asked their system for less.
  respectReducedMotion: true,
  components: {
    // A link inside a sentence must not be told apart by colour alone (WCAG 1.4.1).
    Anchor: Anchor.extend({ defaultProps: { underline: 'always' } }),
    // A badge always shows its whole word. Mantine's may shrink in a row of flex items or a
    // squeezed table column and cut its text with an ellipsis ("BOUN…", "PEND…", "N…"): here it
    // keeps its width, and what holds it wraps (groups) or scrolls (tables) instead.
    Badge: Badge.extend({
      styles: {
        root: { flexShrink: 0, overflow: 'visible' },
        label: { overflow: 'visible', textOverflow: 'clip' },
      },
    }),
    // Dialogs open in the middle of the screen (MediaPicker's tall library opts out). A modal's
    // title that names an address ("Import members into newsletter@…") wraps rather than pushing
    // the × past a phone's screen; the × is named by CloseButton below.
    Modal: Modal.extend({
      defaultProps: { centered: true },
      styles: { title: { minWidth: 0, overflowWrap: 'anywhere' } },
    }),
    // The × of modals, toasts and alerts is an icon: give it a name (axe button-name).
    // (Typed without DOM attributes, which it passes on to its button.)
    CloseButton: CloseButton.extend({ defaultProps: { 'aria-label': 'Close' } as Partial<CloseButtonProps> }),
    // A loader is a bare <span>: the name it is given (aria-label="Loading the list") is
    // allowed only with a role (axe aria-prohibited-attr, seen on a slow machine while the
    // spam test's screen was still loading). A loader hidden with aria-hidden stays hidden.
    Loader: Loader.extend({ defaultProps: { role: 'status' } as Partial<LoaderProps> }),
    // Mantine's placeholder is a focusable role="presentation" div inside role="menu", which
    // a menu may not contain (axe aria-required-children); without it the trap focuses the
    // menu itself and the arrow keys move to the items.
    // A coloured Menu.Item (the red Delete) takes its text from shade 6 whatever the theme
    // says (3.3:1 for red on white); inside menus, shade 6 is the readable text shade.
    Menu: Menu.extend({
      defaultProps: { withInitialFocusPlaceholder: false },
      styles: {
        dropdown: Object.fromEntries(
          Object.keys(DEFAULT_THEME.colors).map((name) => [
            `--mantine-color-${name}-6`,
            `var(--mantine-color-${name}-text)`,
          ]),
        ),
      },
    }),
  },
});

/** WCAG 2.2 AA minimum for normal-size text (1.4.3). */
const MINIMUM_TEXT_CONTRAST = 4.5;

const contrast = (first: string, second: string): number => {
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
};

/**
 * The first shade from `from` up (darker) that reads at 4.5:1 on every background given;
 * past shade 9 (Mantine's green, teal, lime, yellow and orange never get there on white),
 * shade 9 darkened step by step.
 */
const readableShade = (shades: MantineColorsTuple, from: number, backgrounds: string[]): string => {
  const isReadable = (color: string) =>
    backgrounds.every((background) => contrast(color, background) >= MINIMUM_TEXT_CONTRAST);
  const shade = shades.slice(from).find(isReadable);
  if (shade) return shade;
  let amount = 0.05;
  while (!isReadable(darken(shades[9], amount))) amount += 0.05;
  return darken(shades[9], amount);
};

/**
 * Light-scheme colours that meet WCAG 2.2 AA contrast wherever Mantine uses them, in place
 * of its defaults (white on indigo-6 reads at 4.3:1, green text at 2.4:1, placeholders in
 * gray-5 at 2.1:1). Set here once so every screen, present and to come, inherits them:
 * - dimmed and placeholder text: gray-6, made readable above;
 * - `c="green"` text, links, outline buttons: a shade readable on white, the page's gray-0
 *   and the tinted backgrounds of alerts;
 * - filled buttons, badges, pagination: a background white text reads on;
 * - light variants (badges, light buttons, the active nav link): a text shade readable on
 *   their tinted background and its hover.
 * The app has no dark scheme yet; its defaults stay.
 */
export const cssVariablesResolver: CSSVariablesResolver = (resolvedTheme: MantineTheme) => {
  const primaryShade = getPrimaryShade(resolvedTheme, 'light');
  const { white, colors } = resolvedTheme;
  // Text sits on white, on the page's gray-0 and on the tinted surfaces of alerts and light
  // badges: each palette's shade 1, the light variant's background (not `dark`, whose shade 1
  // is a mid gray for dark-scheme text).
  const tints = Object.entries(colors).flatMap(([name, shades]) =>
    name === 'dark' || isVirtualColor(shades) ? [] : [shades[1]],
  );
  const surfaces = [white, colors.gray[0], ...tints];
  const light: Record<string, string> = {
    '--mantine-color-placeholder': 'var(--mantine-color-gray-6)',
    '--mantine-color-error': 'var(--mantine-color-red-text)',
  };
  for (const [name, shades] of Object.entries(colors)) {
    if (isVirtualColor(shades)) continue;
    const text = readableShade(shades, primaryShade, surfaces);
    const filled = readableShade(shades, primaryShade, [white]);
    light[`--mantine-color-${name}-text`] = text;
    light[`--mantine-color-${name}-outline`] = text;
    light[`--mantine-color-${name}-filled`] = filled;
    light[`--mantine-color-${name}-filled-hover`] = darken(filled, 0.1);
    light[`--mantine-color-${name}-light-color`] = readableShade(shades, 9, [shades[1], shades[2]]);
  }
  light['--mantine-color-anchor'] = `var(--mantine-color-${resolvedTheme.primaryColor}-text)`;
  return { variables: {}, light, dark: {} };
};
