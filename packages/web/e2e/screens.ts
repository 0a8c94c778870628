import { type APIRequestContext, expect as baseExpect, type Page } from '@playwright/test';
import {
  accountsApi,
  authApi,
  campaignsApi,
  defaultDailyPlan,
  fillRoutePath,
  listsApi,
  operatorApi,
  profileApi,
  sendEmailApi,
  spamTestApi,
  supportApi,
  suppressionApi,
  type TRoute,
  type TRouteCall,
  type TRouteResponse,
  verificationApi,
} from '@sendwell/contracts';
import { admin, baseUrl } from './support';

/**
 * Every screen of the product, as `screens.spec.ts` visits it at a desktop and a phone width.
 * One entry per screen: its address (made from the seeds it needs), and how to reach what
 * makes it that screen once the address has loaded (its content, a tab, an open dialog).
 * A new screen adds an entry here; a new kind of data adds a seed below.
 * It stays one file (over 800 lines) on purpose: the list is the point, every screen in one
 * place to read and extend, and the entries share the seeds below it.
 *
 * Sources: the spec's screen lists (§2 of both documents) and the React router
 * (`packages/web/src/app/router.tsx`).
 */
export type TScreen = {
  /**
   * Names the screen in failures and screenshots. A screen is checked in its fullest state
   * (a row expanded, its dialog open): the page under a dialog is measured with it.
   */
  name: string;
  /** Who looks: a signed-out visitor, or the journey's user (an operator too, so the operator area shows). */
  as?: 'visitor' | 'user';
  /** A page the server renders outside the app (a recipient's): loaded, never reached through the app's router. */
  outsideApp?: boolean;
  /** The address, from the seeds the screen needs (each made once per run, through the API or the admin CLI). */
  path: (seeds: TSeeds) => string | Promise<string>;
  /** Waits until the screen shows its content, then opens what the screen is (a tab, a row, a dialog). */
  reach: (page: Page) => Promise<void>;
};

// ---------------------------------------------------------------------------------------------
// Seeds: what the screens show, made through the API as the signed-in user (or the admin CLI).

/**
 * The API as the signed-in browser calls it, through the contract's route descriptors (so a
 * seed's body is checked against the schema the server validates): a context's session
 * cookie and a CSRF token. `request` names the context of the moment (each test has its own;
 * the session is the same).
 */
export const createApi = (request: () => APIRequestContext) => {
  let csrfToken: string | undefined;
  const call = async <R extends TRoute>(route: R, input: TRouteCall<R> = {} as TRouteCall<R>) => {
    if (route.method !== 'GET' && csrfToken === undefined) {
      csrfToken = ((await (await request().get(`${baseUrl()}/api${authApi.csrf.path}`)).json()) as { token: string })
        .token;
    }
    const query = new URLSearchParams(
      Object.entries(input.query ?? {}).flatMap(([key, value]) =>
        value === undefined || value === null ? [] : [[key, String(value)]],
      ),
    );
    const url = `${baseUrl()}/api${fillRoutePath(route, input.params)}${query.size > 0 ? `?${query}` : ''}`;
    const response = await request().fetch(url, {
      method: route.method,
      ...(input.body === undefined ? {} : { data: input.body }),
      headers: route.method === 'GET' ? {} : { 'x-csrf-token': csrfToken! },
    });
    if (!response.ok())
      throw new Error(`${route.method} ${url} answered ${response.status()}: ${await response.text()}`);
    return (await response.json()) as TRouteResponse<R>;
  };
  return {
    call,
    /** Signs in; the CSRF token is bound to the session, so a new one is fetched after. */
    signIn: async (email: string, password: string) => {
      await call(authApi.login, { body: { email, password } });
      csrfToken = undefined;
    },
  };
};
export type TApi = ReturnType<typeof createApi>;

/** Screens wait for their data on a loaded machine (two cores shared): more than a form field's 10 s. */
const expect = baseExpect.configure({ timeout: 20_000 });

/** Polls `read` until `isDone` holds, and says what it waited for if it never does. */
const waitUntil = async <T>(what: string, read: () => Promise<T>, isDone: (value: T) => boolean): Promise<T> => {
  let last: T | undefined;
  for (let attempt = 0; attempt < 600; attempt += 1) {
    last = await read();
    if (isDone(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} never happened; last answer: ${JSON.stringify(last)}`);
};

/** Each seed is made on first use and shared by every screen after. */
const once = <T>(make: () => Promise<T>) => {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
};

/** A day five days ahead at 10:00 AM, in the Send Email form's delivery format. */
const inFiveDays = () => `${new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)} 10:00 AM`;

/**
 * Long words on purpose: a long address, subject and list name show whether a screen wraps
 * or overflows what real data brings.
 */
const LONG_ADDRESS = 'alexandra.konstantinopoulou-vanderberg@subscribers.example.com';

export const createSeeds = ({ call }: TApi, user: { email: string; password: string }) => {
  const account = once(async () => {
    // The test inbox, as a newcomer connects it: tested, then saved.
    const fields = { driver: 'test-inbox', username: 'ignored', host: 'ignored', port: 1, encryption: 'tls' } as const;
    await call(accountsApi.sendTestSmtp, { body: fields });
    const saved = await call(accountsApi.create, {
      body: { ...fields, name: 'Test inbox', provider: 'smtp', password: '' },
    });
    return { id: saved.data.id };
  });

  const list = once(async () => {
    const { id: accountId } = await account();
    const created = await call(listsApi.create, {
      body: {
        accountId,
        alias: 'newsletter-subscribers',
        name: 'Newsletter subscribers (autumn campaign, imported from the old CRM)',
        description: 'Everyone who signed up on the website',
      },
    });
    // One address at bounce.test, which the test inbox refuses: the send leaves a bounce.
    for (const [email, fullname] of [
      ['ann@example.com', 'Ann Archer'],
      ['bob@example.com', 'Bob Baker'],
      [LONG_ADDRESS, 'Alexandra Konstantinopoulou-Vanderberg'],
      ['nobody@bounce.test', 'Nobody'],
    ] as const) {
      await call(listsApi.addMember, { body: { listId: created.data.id, email, fullname, subscribe: 1 } });
    }
    return { id: created.data.id, accountId };
  });

  /** A finished send to the list: History, its details, the dashboard's events, a bounce in Suppression. */
  const send = once(async () => {
    const { id: listId, accountId } = await list();
    const sent = await call(sendEmailApi.send, {
      body: {
        account: accountId,
        from: 'Olivia at Acme',
        to: [listId],
        // A merge field with a fallback: History shows it as readers see it ("friend"), not the braces.
        subject: 'Our autumn newsletter, {{name::friend}}: twelve things we shipped this season',
        message: '<p>Hello {{name}}, here is what is new.</p>',
        sendLater: false,
      },
    });
    // No storageId: the send is made at once (only a send waiting for a verification has none yet).
    const sendId = sent.sendId!;
    await waitUntil(
      'the send finishing',
      () => call(sendEmailApi.progress, { params: { id: sendId } }),
      (answer) => answer.data.status === 'finished',
    );
    // The bounce is recorded as the send settles; Suppression lists it then.
    await waitUntil(
      'the bounce reaching Suppression',
      () => call(suppressionApi.list, { query: { per_page: 5 } }),
      (page) => page.meta.total > 0,
    );
    return { id: sendId, accountId };
  });

  /** An A/B subject test whose rest waits an hour: History shows each part with its A/B label. */
  const abTest = once(async () => {
    const { id: listId, accountId } = await list();
    await call(sendEmailApi.send, {
      body: {
        account: accountId,
        from: 'Olivia at Acme',
        to: [listId],
        subject: 'Which subject opens more: the short one',
        subjectB: 'Which subject opens more: the long one, with every detail of the season in it',
        abTest: true,
        abTestPercent: 50,
        abWaitMinutes: 60,
        abMetric: 'opens',
        message: '<p>Hello {{name}}.</p>',
        sendLater: false,
      },
    });
  });

  const scheduled = once(async () => {
    const { id: listId, accountId } = await list();
    const later = await call(sendEmailApi.send, {
      body: {
        account: accountId,
        from: 'Olivia at Acme',
        to: [listId],
        subject: 'Black Friday preview for subscribers',
        message: '<p>Deals are coming.</p>',
        delivery: inFiveDays(),
        sendLater: true,
      },
    });
    return { id: later.sendId! };
  });

  /** The wizard's first five steps, as the page calls them. */
  const campaignSteps = async (title: string) => {
    const { id: accountId } = await account();
    const start = await call(campaignsApi.saveStart, {
      body: { accountId, title, senderName: 'Olivia at Acme', signature: '<p>— Olivia</p>' },
    });
    const temporary = start.temporaryKey;
    await call(campaignsApi.saveRecipients, {
      body: {
        temporary,
        recipients: [
          { email: 'ann@example.com', name: 'Ann', variables: { company: 'Initech' } },
          { email: LONG_ADDRESS, name: 'Alexandra', variables: { company: 'Konstantinopoulou Holdings' } },
        ],
      },
    });
    await call(campaignsApi.saveSequence, {
      body: {
        temporary,
        drips: [
          { subject: 'Welcome, {{name::friend}}', body: '<p>Hi {{name::there}}.</p>', replyTo: 'olivia@acme.test' },
          { subject: 'Re: Welcome, {{name::friend}}', body: '<p>Following up.</p>', period: 2, frequency: 'day' },
        ],
        dailyPlan: defaultDailyPlan(),
      },
    });
    await call(campaignsApi.savePreview, { body: { temporary } });
    await call(campaignsApi.saveOptions, {
      body: { temporary, options: { acceptLaw: true, trackOpens: true, scheduled: false, scheduleTime: null } },
    });
    return { temporary, id: start.id };
  };

  /** A saved, running drip campaign. */
  const campaign = once(async () => {
    const { temporary } = await campaignSteps('Welcome series for new subscribers');
    const finished = await call(campaignsApi.finish, { body: { temporary } });
    return { id: finished.id };
  });

  /** An unsaved campaign that reached its last step, so every tab of the wizard opens. */
  const draft = once(async () => ({ id: (await campaignSteps('Spring re-engagement (draft)')).id }));

  const spamTest = once(async () => {
    const { id: accountId } = await account();
    const sent = await call(spamTestApi.send, {
      body: {
        account: accountId,
        from: 'Olivia at Acme',
        subject: 'Our autumn newsletter',
        mail_body: '<p>Hello, here is what is new. <a href="https://acme.example/unsubscribe">Unsubscribe</a></p>',
      },
    });
    await waitUntil(
      'the spam test being scored',
      () => call(spamTestApi.result, { params: { id: sent.data.mail } }),
      (answer) => answer.data.status === 'scored' || answer.data.status === 'failed',
    );
    return { id: sent.data.mail };
  });

  const verification = once(async () => {
    const stored = await call(verificationApi.textStore, {
      body: {
        emails: ['someone@accept.test', 'nobody@reject.test', 'info@catchall.test', LONG_ADDRESS].join('\n'),
      },
    });
    await call(verificationApi.lastCheck, {
      body: { listId: stored.data.listId, creditsToBeUsed: stored.data.creditToBeUsed },
    });
    return { id: stored.data.listId };
  });

  /** A ticket with an answer from support (the user is an operator too). */
  const ticket = once(async () => {
    const created = await call(supportApi.createTicket, {
      body: {
        subject: 'The import of my 40,000-row file stopped at 61%',
        message: 'It says "Processing" since yesterday. Can you look?',
      },
    });
    await call(operatorApi.answerTicket, {
      params: { id: created.data.id },
      body: { message: 'Thanks, we are looking at it and will write back today.' },
    });
    return { id: created.data.id };
  });

  const notification = once(async () => {
    admin('notify', user.email, 'Your import finished', '--body', 'Newsletter subscribers: 4 members added.');
  });

  /** A draft announcement: operators see it in their tab; users see nothing until it is published. */
  const announcement = once(async () => {
    await call(operatorApi.createAnnouncement, {
      body: { title: 'Scheduled maintenance on Sunday', body: 'Sending pauses for ten minutes at 02:00 UTC.' },
    });
  });

  // A change of email waiting for its link: the Profile shows it with Cancel (R41).
  const pendingEmail = once(async () => {
    await call(profileApi.changeEmail, {
      body: { email: `new-${user.email}`, current_password: user.password },
    });
  });

  /** The list's public signup form (issue 48): where its hosted page is. */
  const signupForm = once(async () => {
    const { id } = await list();
    const form = await call(listsApi.signupForm, { params: { listId: id } });
    return { listId: id, hostedPath: new URL(form.data.form_url).pathname };
  });

  return {
    account,
    list,
    pendingEmail,
    signupForm,
    send,
    abTest,
    scheduled,
    campaign,
    draft,
    spamTest,
    verification,
    ticket,
    notification,
    announcement,
  };
};
export type TSeeds = ReturnType<typeof createSeeds>;

// ---------------------------------------------------------------------------------------------
// How screens are reached.

const heading = (page: Page, name: string | RegExp) =>
  expect(page.getByRole('heading', { level: 1, name })).toBeVisible();

/** The screen's heading, then its first table showing `text`. */
const tableWith = async (page: Page, title: string | RegExp, text: string | RegExp) => {
  await heading(page, title);
  await expect(page.getByTestId('data-table').first()).toContainText(text);
};

const openDialog = async (page: Page, name: string | RegExp) => {
  const dialog = page.getByRole('dialog', { name });
  await expect(dialog).toBeVisible();
  // Modals fade in; measure the settled one.
  await expect(dialog).toHaveCSS('opacity', '1');
  return dialog;
};

/**
 * Runs a row's action: on a phone the row's actions sit behind its "Actions for …" button
 * (DataTable's row menu), which is opened first.
 */
const rowAction = async (page: Page, row: string, action: string | RegExp, role: 'button' | 'link' = 'button') => {
  const menu = page.getByRole('button', { name: `Actions for ${row}`, exact: true });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole(role, { name: action }).click();
};

const wizard = async (page: Page, step: string) => {
  await heading(page, 'New Drip Campaign');
  await expect(page.getByRole('tab', { name: step })).toHaveAttribute('aria-selected', 'true');
};

export const screens: TScreen[] = [
  // Signed out.
  { name: 'sign in', as: 'visitor', path: () => '/login', reach: (page) => heading(page, /Sign in/) },
  {
    name: 'registration, plans',
    as: 'visitor',
    path: () => '/register',
    reach: (page) => expect(page.getByTestId('register-plan-2')).toBeVisible(),
  },
  {
    name: 'registration, details',
    as: 'visitor',
    path: () => '/register',
    reach: async (page) => {
      await page.getByTestId('register-plan-2').getByRole('button', { name: 'Get Started' }).click();
      await expect(page.getByLabel('Full Name')).toBeVisible();
    },
  },
  {
    name: 'forgot password',
    as: 'visitor',
    path: () => '/forgot-password',
    reach: (page) => expect(page.getByLabel('Email')).toBeVisible(),
  },
  {
    name: 'reset password',
    as: 'visitor',
    path: () => '/reset-password/not-a-real-token',
    reach: (page) => expect(page.getByLabel('New password', { exact: false }).first()).toBeVisible(),
  },
  {
    // The old address's link (R41); a made-up link shows the same page until the button is pressed.
    name: 'undo an email change',
    as: 'visitor',
    path: () => `/settings/profile/undo-email/1.${'x'.repeat(43)}`,
    reach: (page) => expect(page.getByRole('button', { name: 'Undo the change' })).toBeVisible(),
  },
  {
    name: 'contact us, signed out',
    as: 'visitor',
    path: () => '/contact-us',
    reach: (page) => expect(page.getByLabel('Message')).toBeVisible(),
  },

  // Dashboard and sending.
  {
    name: 'dashboard',
    path: async (seeds) => {
      await seeds.send();
      return '/';
    },
    reach: async (page) => {
      await heading(page, /^Welcome/);
      await expect(page.getByTestId('data-table')).toContainText('ann@example.com');
    },
  },
  {
    name: 'send email',
    path: async (seeds) => {
      await seeds.list();
      return '/send-email';
    },
    reach: async (page) => {
      await heading(page, 'Send Email');
      await page.getByLabel('Mailing lists').click();
      await page.getByRole('option', { name: /Newsletter subscribers/ }).click();
      await page.keyboard.press('Escape');
      await page.getByLabel('Subject').fill('Our autumn newsletter: twelve things we shipped this season');
    },
  },
  {
    name: 'send email, a duplicate of a sent one',
    path: async (seeds) => `/history/edit-email/${(await seeds.send()).id}`,
    reach: (page) => expect(page.getByLabel('Subject')).toHaveValue(/autumn newsletter/),
  },
  {
    name: 'scheduled emails, editing one',
    path: async (seeds) => {
      await seeds.scheduled();
      return '/scheduled-mails';
    },
    reach: async (page) => {
      await tableWith(page, 'Scheduled Emails', 'Black Friday');
      // Edit opens the spec's page (/scheduled-mails/edit/{id}): the whole Send Email form.
      await rowAction(page, 'Black Friday preview for subscribers', /^Edit Black Friday/, 'link');
      await heading(page, 'Edit Scheduled Email');
      await expect(page.getByLabel('Subject')).toHaveValue(/Black Friday/);
    },
  },
  {
    // The spec's linked path of a row action (issue 47): a page with the email and a confirm.
    name: 'scheduled email, the cancel page',
    path: async (seeds) => `/scheduled-mails/cancel/${(await seeds.scheduled()).id}`,
    reach: async (page) => {
      await heading(page, 'Cancel Scheduled Email');
      await expect(page.getByRole('table', { name: 'The scheduled email' })).toContainText('Black Friday');
      await expect(page.getByRole('button', { name: 'Cancel email' })).toBeVisible();
    },
  },
  {
    name: 'history, a row expanded',
    path: async (seeds) => {
      await Promise.all([seeds.send(), seeds.abTest()]);
      return '/history';
    },
    reach: async (page) => {
      // Subjects as readers see them: the merge field's fallback, not its braces.
      await tableWith(page, 'History', 'autumn newsletter, friend:');
      await expect(page.getByTestId('data-table')).toContainText('A/B test · winner to the rest');
      await page.getByRole('button', { name: 'Expand row' }).first().click();
      await expect(page.getByLabel('Statistics')).toContainText('Sent');
    },
  },
  {
    name: 'history, send again with its checklist',
    path: async (seeds) => {
      await seeds.send();
      return '/history';
    },
    reach: async (page) => {
      await tableWith(page, 'History', 'autumn newsletter, friend:');
      await rowAction(
        page,
        'Our autumn newsletter, friend: twelve things we shipped this season',
        /^Send again: Our autumn/,
      );
      const dialog = await openDialog(page, 'Send this email again?');
      await expect(dialog.getByTestId('pre-send-checklist')).toBeVisible();
    },
  },
  {
    name: 'history details',
    path: async (seeds) => {
      const { id, accountId } = await seeds.send();
      return `/history/details/${accountId}/${id}`;
    },
    reach: (page) => tableWith(page, /^History: /, 'ann@example.com'),
  },
  {
    name: 'suppression, a row expanded',
    path: async (seeds) => {
      await seeds.send();
      return '/suppression';
    },
    reach: async (page) => {
      await tableWith(page, 'Bounces and Suppression', 'nobody@bounce.test');
      await page.getByRole('button', { name: 'Expand row' }).first().click();
      await expect(page.getByText('550 5.1.1').first()).toBeVisible();
    },
  },

  // Drip campaigns.
  {
    name: 'drip campaigns',
    path: async (seeds) => {
      await Promise.all([seeds.campaign(), seeds.draft()]);
      return '/campaigns';
    },
    reach: async (page) => {
      await heading(page, 'Drip Campaigns');
      await expect(page.getByRole('table', { name: 'Campaigns' })).toContainText('Welcome series');
    },
  },
  { name: 'wizard, start', path: () => '/campaigns/new', reach: (page) => wizard(page, '1. Start') },
  {
    name: 'wizard, recipients',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/recipients`,
    reach: (page) => wizard(page, '2. Recipients'),
  },
  {
    name: 'wizard, recipients, import new from a list',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/recipients`,
    reach: async (page) => {
      await wizard(page, '2. Recipients');
      await expect(page.getByRole('table', { name: 'Recipient files' })).toBeVisible();
      await page.getByRole('button', { name: 'Import new' }).click();
      await page.getByRole('tab', { name: 'From Mailing Lists' }).click();
      await expect(page.getByRole('combobox', { name: 'Mailing lists' })).toBeVisible();
    },
  },
  {
    name: 'wizard, recipients, remove a file',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/recipients`,
    reach: async (page) => {
      await wizard(page, '2. Recipients');
      await page
        .getByRole('button', { name: /^Remove / })
        .first()
        .click();
      await openDialog(page, 'Remove these recipients?');
    },
  },
  {
    name: 'wizard, compose',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/compose`,
    reach: async (page) => {
      await wizard(page, '3. Compose');
      await expect(page.getByRole('heading', { name: '#Email - 2' })).toBeVisible();
    },
  },
  {
    name: 'wizard, preview',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/preview`,
    reach: async (page) => {
      await wizard(page, '4. Preview');
      await expect(page.getByTestId('preview-index')).toHaveText('1 / 2');
    },
  },
  {
    name: 'wizard, options with the schedule',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/options`,
    reach: async (page) => {
      await wizard(page, '5. Options');
      await page.getByLabel('Schedule the first campaign mail').check();
      await expect(page.getByRole('combobox', { name: 'First mail at' })).toBeVisible();
    },
  },
  {
    name: 'wizard, finish',
    path: async (seeds) => `/campaigns/continue/${(await seeds.draft()).id}#/drip/finish`,
    reach: (page) => wizard(page, '6. Finish'),
  },
  {
    name: 'campaign overview',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/overview`,
    reach: async (page) => {
      await heading(page, 'Welcome series for new subscribers');
      await expect(page.getByTestId('campaign-totals')).toContainText('Recipients');
    },
  },
  {
    name: 'campaign emails',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/mails`,
    reach: (page) => expect(page.getByRole('table', { name: 'Emails of the campaign' })).toContainText('Email # 2'),
  },
  {
    name: 'campaign, edit sequence',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/mails`,
    reach: async (page) => {
      await expect(page.getByRole('table', { name: 'Emails of the campaign' })).toContainText('Email # 2');
      await page.getByRole('button', { name: 'Edit Sequence' }).click();
      await (await openDialog(page, 'Edit the sequence?')).getByRole('button', { name: 'Continue' }).click();
      await expect(page.getByRole('heading', { name: '#Email - 2' })).toBeVisible();
    },
  },
  {
    name: 'campaign recipients',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/members`,
    reach: (page) =>
      expect(page.getByRole('table', { name: 'Recipients of the campaign' })).toContainText('ann@example.com'),
  },
  {
    name: 'campaign errors',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/errors`,
    reach: (page) => expect(page.getByRole('table', { name: 'Failed emails of the campaign' })).toBeVisible(),
  },
  {
    name: 'campaign members list',
    path: async (seeds) => `/drip-campaign/campaign/${(await seeds.campaign()).id}/members`,
    reach: (page) => expect(page.getByRole('table', { name: 'Members of the campaign' })).toContainText('@'),
  },
  {
    name: 'campaign members list, delete dialog',
    path: async (seeds) => `/drip-campaign/campaign/${(await seeds.campaign()).id}/members`,
    reach: async (page) => {
      await expect(page.getByRole('table', { name: 'Members of the campaign' })).toContainText('@');
      await rowAction(page, 'ann@example.com', 'Delete ann@example.com');
      await openDialog(page, 'Delete this member?');
    },
  },
  {
    name: 'campaign settings',
    path: async (seeds) => `/campaigns/detail/${(await seeds.campaign()).id}/settings`,
    reach: (page) =>
      expect(page.getByRole('form', { name: 'Campaign settings' }).getByLabel('Title')).toHaveValue(
        'Welcome series for new subscribers',
      ),
  },

  // Lists.
  {
    name: 'mailing lists, importing a CSV',
    path: async (seeds) => {
      await seeds.list();
      return '/mailing-lists';
    },
    reach: async (page) => {
      await tableWith(page, 'Mailing Lists', 'newsletter-subscribers');
      await page.getByRole('button', { name: /^Actions for newsletter-subscribers/ }).click();
      await page.getByRole('menuitem', { name: 'Import CSV' }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog).toBeVisible();
      const chooser = page.waitForEvent('filechooser');
      await dialog.getByLabel(/CSV file/).click();
      await (await chooser).setFiles({
        name: 'subscribers.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(
          `email,name,company,city\ncarl@example.com,Carl,Initech,Springfield\n${LONG_ADDRESS},Alexandra,Konstantinopoulou Holdings,Thessaloniki\n`,
        ),
      });
      await expect(dialog).toContainText('carl@example.com');
    },
  },
  {
    name: 'list members',
    path: async (seeds) => {
      const { id, accountId } = await seeds.list();
      return `/mailing-lists/detail/${accountId}/${id}`;
    },
    reach: (page) => tableWith(page, /Newsletter subscribers/, 'ann@example.com'),
  },
  {
    name: 'list signup form',
    path: async (seeds) => `/mailing-lists/signup-form/${(await seeds.signupForm()).listId}`,
    reach: async (page) => {
      await heading(page, 'Signup form');
      await expect(page.getByLabel('Embeddable form (HTML)')).toHaveValue(/<form method="post"/);
    },
  },
  {
    name: 'hosted signup form',
    as: 'visitor',
    outsideApp: true,
    path: async (seeds) => (await seeds.signupForm()).hostedPath,
    reach: (page) => heading(page, /Subscribe to Newsletter subscribers/),
  },

  // Tools.
  {
    name: 'spam test',
    path: async (seeds) => {
      await seeds.account();
      return '/tools/mail-testing';
    },
    reach: (page) => heading(page, 'Testing Sending Mails'),
  },
  {
    name: 'spam test history',
    path: async (seeds) => {
      await seeds.spamTest();
      return '/tools/mail-testing/history';
    },
    reach: (page) => tableWith(page, 'Spam Test History', 'Our autumn newsletter'),
  },
  {
    name: 'spam test result',
    path: async (seeds) => `/tools/mail-testing/history/result/${(await seeds.spamTest()).id}`,
    reach: async (page) => {
      await heading(page, 'Spam Test Result');
      await expect(page.getByText(/out of 10|\/ ?10/).first()).toBeVisible();
    },
  },
  {
    name: 'email verification',
    path: async (seeds) => {
      await seeds.verification();
      return '/tools/email-verification';
    },
    reach: async (page) => {
      await heading(page, 'Email Verification');
      await expect(page.getByTestId('data-table').first()).not.toContainText('No data found.');
    },
  },

  // Settings and account.
  {
    name: 'sending accounts',
    path: async (seeds) => {
      await seeds.account();
      return '/settings/accounts';
    },
    reach: async (page) => {
      await heading(page, 'Sending Accounts');
      await page.locator('[data-testid^="account-item-"] button').first().click();
    },
  },
  {
    name: 'test inbox, a message open',
    path: async (seeds) => {
      await seeds.send();
      return '/test-inbox';
    },
    reach: async (page) => {
      await tableWith(page, 'Test Inbox', 'autumn newsletter');
      await page
        .getByTestId('data-table')
        .getByText(/autumn newsletter/)
        .first()
        .click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expect(page.getByRole('dialog')).toHaveCSS('opacity', '1');
    },
  },
  {
    name: 'profile, a change of email waiting',
    path: async (seeds) => {
      await seeds.pendingEmail();
      return '/settings/profile';
    },
    reach: async (page) => {
      await heading(page, 'Profile');
      await expect(
        page.getByTestId('profile-pending-email').getByRole('button', { name: /^Cancel the change/ }),
      ).toBeVisible();
    },
  },
  { name: 'subscription', path: () => '/settings/subscription', reach: (page) => heading(page, 'Subscription') },
  { name: 'API keys', path: () => '/settings/api-keys', reach: (page) => heading(page, 'API keys') },
  { name: 'webhooks', path: () => '/settings/webhooks', reach: (page) => heading(page, 'Webhooks') },
  {
    name: 'credit log',
    path: async (seeds) => {
      await seeds.spamTest();
      return '/credit-log';
    },
    reach: (page) => tableWith(page, 'Credit Log', /Spam/i),
  },
  {
    name: 'support, a ticket open',
    path: async (seeds) => {
      await seeds.ticket();
      return '/support';
    },
    reach: async (page) => {
      await tableWith(page, 'Support', 'import of my 40,000-row file');
      await page.getByRole('button', { name: /import of my 40,000-row file/ }).click();
      await expect(page.getByRole('dialog')).toContainText('we are looking at it');
    },
  },
  {
    name: 'notifications',
    path: async (seeds) => {
      await seeds.notification();
      return '/notifications';
    },
    reach: (page) => tableWith(page, 'Notifications', 'Your import finished'),
  },
  {
    name: 'contact us, signed in',
    path: () => '/contact-us',
    reach: (page) => expect(page.getByLabel('Message')).toBeVisible(),
  },
  {
    name: 'page not found',
    path: () => '/no-such-screen',
    reach: (page) => expect(page.getByRole('heading', { level: 1 })).toBeVisible(),
  },

  // The operator area (the journey's user is an operator).
  {
    name: 'operator, users',
    path: () => '/operator/users',
    reach: (page) => tableWith(page, 'Operator', 'example.com'),
  },
  {
    name: 'operator, plans',
    path: () => '/operator/plans',
    reach: (page) => expect(page.getByRole('table', { name: 'Plans' })).toContainText('Business'),
  },
  {
    name: 'operator, tickets',
    path: async (seeds) => {
      await seeds.ticket();
      return '/operator/tickets';
    },
    reach: (page) => tableWith(page, 'Operator', 'import of my 40,000-row file'),
  },
  {
    name: 'operator, announcements',
    path: async (seeds) => {
      await seeds.announcement();
      return '/operator/announcements';
    },
    reach: async (page) => {
      await heading(page, 'Operator');
      // Each width's run seeds its own draft for the one operator: two rows by the second run.
      await expect(page.getByText('Scheduled maintenance on Sunday').first()).toBeVisible();
    },
  },
  {
    name: 'operator, system',
    path: () => '/operator/system',
    reach: (page) => expect(page.getByRole('table', { name: 'Queues' })).toBeVisible(),
  },
  {
    name: 'operator, audit log',
    path: () => '/operator/audit',
    reach: async (page) => {
      await heading(page, 'Operator');
      await expect(page.getByTestId('data-table')).toBeVisible();
    },
  },
];
