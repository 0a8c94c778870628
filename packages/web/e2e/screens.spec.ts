import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { createApi, createSeeds, screens } from './screens';
import { admin, baseUrl, expectAccessible } from './support';

/**
 * Every screen (screens.ts) at a desktop and a phone width, as issue 29 asks: the page is
 * never wider than the viewport (no sideways scrolling: WCAG 1.4.10 reflow at 390 px), no
 * badge is cut off, at 1440 px no table scrolls sideways in its own box (issue 45 §4), no word
 * in a table is broken over more than two lines, and axe finds nothing serious (target size,
 * 2.5.8, included). Each width
 * visits every screen and then fails once with everything it found, screen by screen.
 *
 * `SCREENSHOTS_DIR=…` saves a full-page PNG of each screen at each width, to look at.
 */

const VIEWPORTS = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

// A long address without a hyphen on purpose: it is the From of every send, and History must fit
// it at 1440 px (the old layout put it on one unbreakable line and scrolled sideways).
const user = {
  email: `sasha.screens${Date.now()}@example.com`,
  password: 'secret123',
  name: 'Sasha Screens',
};

/**
 * What is wrong with the layout as shown: the page (or an open dialog) wider than the
 * viewport, naming the outermost elements that stick out, and badges whose text is cut off.
 * An element inside a container that scrolls sideways on purpose (a wide table's own
 * scroller) sticks out of nothing.
 */
const layoutProblems = (page: Page) =>
  page.evaluate(() => {
    const problems: string[] = [];
    const viewport = document.documentElement.clientWidth;
    const isVisible = (element: Element) => element.getClientRects().length > 0;
    const clipsSideways = (element: Element) =>
      ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(element).overflowX);
    const describe = (element: Element) => {
      const label =
        element.getAttribute('aria-label') ??
        element.getAttribute('data-testid') ??
        [...element.classList].find((name) => name.startsWith('mantine-')) ??
        element.textContent?.trim().slice(0, 30);
      return `<${element.tagName.toLowerCase()}${label ? ` "${label}"` : ''}> ${Math.round(element.getBoundingClientRect().width)} px`;
    };
    /** The outermost elements under `root` reaching past `right`, not counting those in a sideways scroller. */
    const stickingOut = (root: Element, right: number) => {
      const found: Element[] = [];
      const walk = (element: Element) => {
        for (const child of element.children) {
          if (!isVisible(child)) continue;
          if (child.getBoundingClientRect().right > right + 1) {
            found.push(child);
            continue;
          }
          if (!clipsSideways(child)) walk(child);
        }
      };
      walk(root);
      // Nothing found outside a scroller: something inside one escapes it (an absolutely
      // positioned element whose containing block lies outside the scroller). Name those.
      if (found.length === 0) {
        const out = [...root.querySelectorAll('*')].filter(
          (element) => isVisible(element) && element.getBoundingClientRect().right > right + 1,
        );
        found.push(...out.filter((element) => !element.closest('[data-scrolls-sideways]')).reverse());
        if (found.length === 0) found.push(...out.reverse());
      }
      // The deepest single culprit says most: follow an element while one child alone sticks out.
      return found.slice(0, 4).map((element) => {
        let culprit = element;
        for (;;) {
          const out = [...culprit.children].filter(
            (child) => isVisible(child) && child.getBoundingClientRect().right > right + 1,
          );
          if (out.length !== 1 || clipsSideways(culprit)) break;
          culprit = out[0]!;
        }
        return culprit === element ? describe(element) : `${describe(element)} › ${describe(culprit)}`;
      });
    };

    const width = document.documentElement.scrollWidth;
    if (width > viewport) {
      problems.push(
        `the page is ${width} px wide in a ${viewport} px viewport: ${stickingOut(document.body, viewport).join('; ')}`,
      );
    }
    for (const dialog of document.querySelectorAll('[role="dialog"]')) {
      if (!isVisible(dialog)) continue;
      const box = dialog.getBoundingClientRect();
      // A part of the dialog that scrolls sideways, other than a wide table's own scroller.
      const scroller = [dialog, ...dialog.querySelectorAll('*')].find(
        (element) =>
          ['auto', 'scroll'].includes(getComputedStyle(element).overflowX) &&
          element.scrollWidth > element.clientWidth + 1 &&
          !element.closest('[data-scrolls-sideways]'),
      );
      if (box.right > viewport + 1 || box.left < -1) {
        problems.push(`a dialog is ${Math.round(box.width)} px wide in a ${viewport} px viewport`);
      } else if (scroller) {
        problems.push(
          `a dialog scrolls sideways: ${describe(scroller)} holds ${scroller.scrollWidth} px: ${stickingOut(scroller, scroller.getBoundingClientRect().right).join('; ')}`,
        );
      }
    }
    for (const badge of document.querySelectorAll('.mantine-Badge-root')) {
      if (!isVisible(badge)) continue;
      const label = badge.querySelector('.mantine-Badge-label') ?? badge;
      // The label clips its text with an ellipsis; the badge clips the label when squeezed.
      const cut = [label, badge].find((element) => element.scrollWidth > element.clientWidth + 1);
      if (cut) {
        problems.push(`a badge is cut off: "${label.textContent}" needs ${cut.scrollWidth} px, has ${cut.clientWidth}`);
      }
    }
    // On a wide screen no table needs its sideways scroller: everything a row says fits (issue 45 §4).
    if (viewport >= 1024) {
      for (const scroller of document.querySelectorAll('[data-scrolls-sideways]')) {
        if (!isVisible(scroller) || scroller.scrollWidth <= scroller.clientWidth + 1) continue;
        const table = scroller.querySelector('table') ?? scroller;
        problems.push(
          `a table scrolls sideways at ${viewport} px: ${describe(table)} in a ${scroller.clientWidth} px box (${scroller.scrollWidth} px of content)`,
        );
      }
    }
    // A word (an address, a link) broken over more than two lines in a table cell is hard to read:
    // the column is too narrow for what it holds (addresses in member tables on a phone).
    for (const cell of document.querySelectorAll('td')) {
      if (!isVisible(cell)) continue;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent?.trim() ?? '';
        if (text.length < 12 || /\s/.test(text)) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
        if (lines > 2) problems.push(`"${text.slice(0, 60)}" is broken over ${lines} lines in a table cell`);
      }
    }
    return problems;
  });

/**
 * Opens `path` as a click on a link would: inside the app already, through the router
 * (history.pushState and a popstate), which is how people move between screens and spares
 * reloading the app for each one; otherwise (or to the same address again) by loading it.
 */
const visit = async (page: Page, path: string) => {
  const current = page.url();
  if (!current.startsWith(baseUrl()) || current === `${baseUrl()}${path}`) {
    await page.goto(`${baseUrl()}${path}`);
    return;
  }
  await page.evaluate((target) => {
    window.history.pushState(null, '', target);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
};

/** An error's first lines, and every line naming an axe finding (below the diff's header, which alone says nothing). */
const briefOf = (error: unknown) => {
  const lines = (error instanceof Error ? error.message : String(error)).split('\n');
  const findings = lines.slice(6).filter((line) => /\((serious|critical)\)/.test(line));
  return [...lines.slice(0, 6), ...findings].join(' ');
};

let storageState: Awaited<ReturnType<APIRequestContext['storageState']>>;
/** The signed-in context of the test that runs: seeds are made through it (contexts end with their test). */
let currentRequest: APIRequestContext;
const api = createApi(() => currentRequest);
const seeds = createSeeds(api, user);

test.beforeAll(async ({ playwright }) => {
  // One user for the whole journey, an operator too, so the operator area is among the screens.
  admin('create-user', user.email, '--name', user.name, '--password', user.password, '--plan', '3');
  admin('grant-operator', user.email);
  const request = await playwright.request.newContext();
  currentRequest = request;
  await api.signIn(user.email, user.password);
  storageState = await request.storageState();
  await request.dispose();
});

for (const viewport of VIEWPORTS) {
  test(`every screen at ${viewport.width}×${viewport.height} (${viewport.name}): nothing wider than the viewport, no badge cut off, no table scrolling at desktop width, axe clean`, async ({
    browser,
  }) => {
    test.setTimeout(600_000);
    const size = { width: viewport.width, height: viewport.height };
    const contexts = {
      user: await browser.newContext({ viewport: size, storageState }),
      visitor: await browser.newContext({ viewport: size }),
    };
    currentRequest = contexts.user.request;
    // Every seed starts now, side by side; each screen waits only for the ones it shows.
    void Promise.allSettled(Object.values(seeds).map((seed) => seed()));
    const pages = { user: await contexts.user.newPage(), visitor: await contexts.visitor.newPage() };
    // A control a screen lacks fails its step in a while, not at the end of the whole test.
    for (const page of Object.values(pages)) page.setDefaultTimeout(20_000);
    const screenshots = process.env.SCREENSHOTS_DIR;
    if (screenshots) fs.mkdirSync(screenshots, { recursive: true });
    const problems: string[] = [];
    // SCREENS=history,plans runs only the screens whose names contain one of the words.
    const only = process.env.SCREENS?.split(',').map((word) => word.trim());
    for (const screen of screens.filter((candidate) => !only || only.some((word) => candidate.name.includes(word)))) {
      await test.step(screen.name, async () => {
        const page = pages[screen.as ?? 'user'];
        // SCREENS_TIMING=1 prints where each screen's time went: seeds, reaching it, measuring, axe.
        const times: [string, number][] = [['start', Date.now()]];
        const lap = (what: string) => times.push([what, Date.now()]);
        try {
          const address = await screen.path(seeds);
          lap('seeds');
          if (screen.outsideApp) await page.goto(`${baseUrl()}${address}`);
          else await visit(page, address);
          await screen.reach(page);
          lap('reach');
          for (const problem of await layoutProblems(page)) problems.push(`${screen.name}: ${problem}`);
          if (screenshots) {
            await page.screenshot({
              path: path.join(screenshots, `${viewport.width}-${screen.name.replace(/[^a-z0-9]+/gi, '-')}.png`),
              fullPage: true,
            });
          }
          lap('layout');
          await expectAccessible(page, `${screen.name} at ${viewport.width} px`);
          lap('axe');
        } catch (error) {
          problems.push(`${screen.name}: ${briefOf(error)}`);
        }
        if (process.env.SCREENS_TIMING) {
          const laps = times.slice(1).map(([what, at], index) => `${what} ${at - times[index]![1]}`);
          console.log(`${viewport.width} px, ${screen.name}: ${Date.now() - times[0]![1]} ms (${laps.join(', ')})`);
        }
      });
    }
    await contexts.user.close();
    await contexts.visitor.close();
    expect(problems, `problems at ${viewport.width} px`).toEqual([]);
  });
}
