import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Locator, type Page, request } from '@playwright/test';
import axe, { type AxeResults, type RunOptions } from 'axe-core';
import pg from 'pg';

export const E2E_USER = { email: 'owner@example.com', password: 'secret123', name: 'Olivia Owner' };

/**
 * A user of one journey file's own, created with the operator CLI: journeys run side by side
 * (two workers), so a file that changes what its user sees (notifications, credits) must not
 * share that user with another file.
 */
export const journeyUser = (name: string, options: { plan?: number } = {}) => {
  const user = {
    email: `${name.toLowerCase().replace(/[^a-z]+/g, '-')}-${Date.now()}@example.com`,
    password: 'secret123',
    name,
  };
  admin(
    'create-user',
    user.email,
    '--name',
    user.name,
    '--password',
    user.password,
    ...(options.plan ? ['--plan', String(options.plan)] : []),
  );
  return user;
};

export const baseUrl = () => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set; run through playwright.config.ts');
  return url;
};

export const signIn = async (page: Page, user = E2E_USER) => {
  await page.goto(`${baseUrl()}/login`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The first screen after sign-in loads the shell and its data: on a machine shared by
  // several test runs that took longer than the default 10 s (seen here at load 25).
  await expect(page.getByTestId('user-name')).toHaveText(user.name, { timeout: 30_000 });
};

/** Where a file keeps its signed-in browser state (`signInOnce`). */
export const stateFile = (name: string) => path.resolve(import.meta.dirname, `../../../.tmp/e2e-state/${name}.json`);

/**
 * Signs `user` in once, through the API, and keeps the session cookie in `file`: a file whose
 * tests start signed in (`test.use({ storageState: file })`) and are not about signing in
 * saves the sign-in form in every test (the form has journeys of its own: auth, keyboard).
 */
export const signInOnce = async (user: { email: string; password: string }, file: string) => {
  // An empty state of its own: Playwright lends a request context the file's context options,
  // and this file's `storageState` is the one being written (it does not exist yet).
  const api = await request.newContext({ baseURL: baseUrl(), storageState: { cookies: [], origins: [] } });
  try {
    const { token } = (await (await api.get('/api/csrf')).json()) as { token: string };
    const login = await api.post('/api/login', {
      data: { email: user.email, password: user.password },
      headers: { 'x-csrf-token': token },
    });
    expect(login.status(), await login.text()).toBe(200);
    await api.storageState({ path: file });
  } finally {
    await api.dispose();
  }
};

/**
 * Runs the operator CLI against the e2e database, as an operator would: the built
 * `dist/admin.js` that `npm run admin` runs (the journeys need the build anyway), which
 * starts in a fraction of the time the sources take under tsx.
 */
export const admin = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['--enable-source-maps', 'dist/admin.js', ...args], {
    cwd: path.resolve(import.meta.dirname, '../../server'),
    env: { ...process.env, ...JSON.parse(process.env.E2E_ENV ?? '{}') },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
};

/**
 * The first message Sendwell mailed to `to` (its own mail: confirmation and reset links), with
 * `subject` when given, waiting for it.
 */
export const waitForMail = async (
  to: string,
  { subject, timeoutMs = 30_000 }: { subject?: string; timeoutMs?: number } = {},
): Promise<{ subject: string; text: string }> => {
  const dir = process.env.E2E_MAIL_DIR;
  if (!dir) throw new Error('E2E_MAIL_DIR is not set; run through playwright.config.ts');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const file of fs.readdirSync(dir).sort()) {
      const mail = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as {
        to: string[];
        subject: string;
        text: string;
      };
      if (mail.to.includes(to.toLowerCase()) && (subject === undefined || mail.subject === subject)) return mail;
    }
    if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

export const withDatabase = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

// ---------------------------------------------------------------- seeds

/**
 * What journeys put straight into the e2e database, as the app would have left it: one
 * helper a shape, so a journey says what it needs (a list of these members) and the SQL that
 * makes it is written once.
 */

/** The user's id. */
export const userIdOf = (email: string) =>
  withDatabase(
    async (client) =>
      (await client.query<{ id: string }>('select id from users where email = $1', [email])).rows[0]!.id,
  );

/** The user's id and the one sending account the journey connected (`connectTestInbox`). */
export const accountOf = (email: string) =>
  withDatabase(async (client) => {
    const { rows } = await client.query<{ user_id: string; account_id: string }>(
      `select u.id as user_id, a.id as account_id from users u join sending_accounts a on a.user_id = u.id
        where u.email = $1`,
      [email],
    );
    return { userId: rows[0]!.user_id, accountId: rows[0]!.account_id };
  });

/** The built-in test inbox as the user's sending account, as Connect the test inbox saves it. */
export const seedTestInboxAccount = (userId: string, fromAddress: string) =>
  withDatabase(
    async (client) =>
      (
        await client.query<{ id: string }>(
          `insert into sending_accounts (user_id, name, provider, driver, username, host, port, encryption, from_address)
           values ($1::bigint, 'Test inbox', 'smtp', 'test-inbox', 'user-' || $1::text, '127.0.0.1', 2525, 'tls', $2)
           returning id`,
          [userId, fromAddress],
        )
      ).rows[0]!.id,
  );

type TSeedMember = string | { email: string; fullname: string };

/**
 * A list on the account (`alias@domain`) with its members, as an import leaves them; a member
 * given as an address is named by its local part. The list's id.
 */
export const seedList = (list: {
  userId: string;
  accountId: string;
  alias: string;
  name: string;
  domain?: string;
  members: TSeedMember[];
  verified?: boolean;
}) =>
  withDatabase(async (client) => {
    const domain = list.domain ?? 'example.com';
    const listId = (
      await client.query<{ id: string }>(
        `insert into mailing_lists (user_id, account_id, alias, domain, address, name)
         values ($1, $2, $3, $4, $3 || '@' || $4, $5) returning id`,
        [list.userId, list.accountId, list.alias, domain, list.name],
      )
    ).rows[0]!.id;
    const members = list.members.map((member) =>
      typeof member === 'string' ? { email: member, fullname: member.split('@')[0]! } : member,
    );
    await client.query(
      `insert into list_members (user_id, list_id, account_id, email, fullname, verified)
       select $1, $2, $3, m.email, m.fullname, $6 from unnest($4::text[], $5::text[]) with ordinality as m(email, fullname, n)
        order by m.n`,
      [
        list.userId,
        listId,
        list.accountId,
        members.map((member) => member.email),
        members.map((member) => member.fullname),
        list.verified ?? false,
      ],
    );
    return listId;
  });

/** A scheduled email (history type 2, pending) to one list. */
export const seedScheduledSend = (send: {
  userId: string;
  accountId: string;
  listId: string;
  listName: string;
  fromName: string;
  fromAddress: string;
  subject: string;
  html: string;
  deliverAt: Date;
}) =>
  withDatabase((client) =>
    client.query(
      `insert into sends (user_id, account_id, type, status, from_name, from_address, subject, html, list_ids, list_names, deliver_at)
       values ($1, $2, 2, 'scheduled', $3, $4, $5, $6, array[$7::bigint], $8, $9)`,
      [
        send.userId,
        send.accountId,
        send.fromName,
        send.fromAddress,
        send.subject,
        send.html,
        send.listId,
        send.listName,
        send.deliverAt,
      ],
    ),
  );

/** The messages the test inbox holds with this subject, in the order they came, with their HTML. */
export const inboxOf = (subject: string) =>
  withDatabase(
    async (client) =>
      (
        await client.query<{ rcpt_to: string[]; html_body: string }>(
          'select rcpt_to, html_body from test_inbox_messages where subject = $1 order by id',
          [subject],
        )
      ).rows,
  );

/**
 * Connects the test inbox through the accounts form (its test message, then Save), as a new
 * user does first; the journeys about the form itself (accounts, keyboard) walk it themselves.
 */
export const connectTestInbox = async (page: Page) => {
  await page.goto(`${baseUrl()}/settings/accounts`);
  await page.getByTestId('connect-test-inbox').click();
  const accountForm = page.getByTestId('account-form');
  await accountForm.getByLabel('Account Name').fill('Test inbox');
  await accountForm.getByTestId('smtp-test').click();
  await expect(accountForm.getByText('A test message was sent')).toBeVisible();
  await accountForm.getByTestId('account-save').click();
  await expect(page.locator('[data-testid^="account-item-"]')).toHaveCount(1);
};

/**
 * Waits for running transitions to end: one caught halfway (a modal fading in, a border
 * taking the focus colour) would be measured at the wrong colours. Loaders spin forever
 * and are left alone.
 */
const settle = async (page: Page) => {
  // Two frames first: a transition whose style change is still queued has not started yet,
  // and would not be among the running animations (a modal caught fading in, seen in CI).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await waitForAnimations(page);
};

const waitForAnimations = (page: Page) =>
  page.waitForFunction(() =>
    document
      .getAnimations()
      .every((animation) => animation.playState !== 'running' || animation.effect?.getTiming().iterations === Infinity),
  );

/** WCAG 2.2 AA: axe's tags for levels A and AA of 2.0, 2.1 and 2.2 (2.2 adds no level-A rule in axe). */
const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/**
 * axe-core on what the page shows now, at WCAG 2.2 AA. Sandboxed email previews are left
 * out: they run no script, so axe cannot run inside and would wait on them; what they show
 * is the sender's message, not the app (their titles are checked in expectAccessible).
 *
 * axe is put into the page once per document and run there with `axe.run`. AxeBuilder
 * re-evaluated axe's 1.3 MB source on every call and finished each run in a new blank
 * page: 845 ms a check on the sign-in page here, against 230 ms; the journeys check ~90
 * screens.
 */
const runAxe = async (page: Page): Promise<AxeResults> => {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(
    (options) =>
      (window as unknown as { axe: typeof axe }).axe.run({ exclude: [['iframe[sandbox]']] } as never, options),
    {
      runOnly: { type: 'tag', values: WCAG_AA_TAGS },
      // Experimental in axe, so off unless named: a visible label the accessible name does not contain (2.5.3).
      rules: { 'label-content-name-mismatch': { enabled: true } },
      iframes: false,
      // Only violations are read: axe then keeps one node of each passing or incomplete rule
      // instead of serializing every node it checked (0.65 s of CPU a check on the dashboard
      // here, against 1.0 s).
      resultTypes: ['violations'],
    } satisfies RunOptions,
  );
};

/**
 * Runs axe on what the page shows now and fails on serious or critical violations, one
 * line per rule and element, so a failure says what to fix without opening the trace.
 * Call it on every screen a journey visits, once the screen has its content (and with a
 * modal or menu open when that is the screen). `screen` names it in the failure.
 */
export const expectAccessible = async (page: Page, screen: string) => {
  await settle(page);
  let results = await runAxe(page);
  // A toast that a live event raised while axe ran (an import's notification) can be caught
  // fading in, its colours measured halfway (seen in CI). It is measured again once settled;
  // a real contrast fault in a toast fails both times.
  // axe names an element by its shortest unique selector (often a bare hashed class), so its
  // markup is what says it is part of a notification.
  const inToast = results.violations.some((violation) =>
    violation.nodes.some((node) => `${node.html} ${node.target.join(' ')}`.includes('mantine-Notification')),
  );
  if (inToast) {
    await page.waitForTimeout(500);
    await settle(page);
    results = await runAxe(page);
  }
  const problems = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map((node) => {
        const detail = node.failureSummary?.split('\n').slice(1).join(' ').trim();
        return `${violation.id} (${violation.impact}) at ${node.target.join(' ')}: ${detail || violation.help}`;
      }),
    );
  for (const frame of await page.locator('iframe[sandbox]').all()) {
    if (!(await frame.getAttribute('title'))?.trim()) problems.push('frame-title: a sandboxed iframe has no title');
  }
  expect(problems, `axe on ${screen} (${page.url()})`).toEqual([]);
};

/**
 * Fails unless the focused element shows it: a focus ring (outline or shadow), or, for
 * Mantine's inputs, a border in the primary colour on the input or the box around it
 * (how they show focus). WCAG 2.4.7.
 */
export const expectVisibleFocus = async (page: Page) => {
  await settle(page);
  const focus = await page.evaluate(() => {
    const element = document.activeElement;
    if (!(element instanceof HTMLElement) || element === document.body) return { isVisible: false, what: 'nothing' };
    const style = getComputedStyle(element);
    const probe = document.createElement('span');
    probe.style.color = 'var(--mantine-primary-color-filled)';
    document.body.append(probe);
    const primary = getComputedStyle(probe).color;
    probe.remove();
    const hasRing =
      (style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
    const what = `${element.tagName.toLowerCase()} "${element.getAttribute('aria-label') ?? element.textContent?.trim().slice(0, 40) ?? ''}"`;
    const box = [element, element.parentElement, element.parentElement?.parentElement];
    const hasFocusBorder = box.some((part) => part && getComputedStyle(part).borderColor === primary);
    return { isVisible: hasRing || hasFocusBorder, what };
  });
  expect(focus.isVisible, `focus is visible on ${focus.what}`).toBe(true);
};

/**
 * Presses Tab (Shift+Tab with `backwards`) until `target` has focus, as a keyboard user
 * moves through a screen, and checks the focus is visible there. Fails after `max` presses,
 * so a control that Tab never reaches fails the journey.
 */
export const tabTo = async (page: Page, target: Locator, { max = 100, backwards = false } = {}) => {
  await expect(target).toBeVisible();
  for (let presses = 0; presses <= max; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement)) {
      await expectVisibleFocus(page);
      return;
    }
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab did not reach ${target} in ${max} presses`);
};

/** Whether focus is inside `container` (a dialog that traps it, say). */
export const hasFocusWithin = (container: Locator) =>
  container.evaluate((element) => element.contains(document.activeElement));

/**
 * The message editor (issue 46) in HTML mode, holding `html`: a new message opens in Visual
 * mode, so the journeys that write HTML switch first. `label` is the editor's ("HTML message").
 */
export const writeHtmlMessage = async (page: Page, html: string, label = 'HTML message') => {
  const editor = page.getByLabel(label, { exact: true });
  if (!(await editor.isVisible())) {
    await page.getByTestId('email-editor').getByText('HTML', { exact: true }).click();
  }
  await expect(editor).toBeVisible();
  await editor.fill(html);
};
