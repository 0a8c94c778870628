import {
  AB_MESSAGES,
  abTestIssues,
  isSendLater,
  parseDeliveryTime,
  SEND_MESSAGES,
  senderEmail,
  senderPartsOf,
  sendFormIssues,
  sendsAsSenderNameOnly,
  type TAccountListsResponse,
  type TSendAccount,
  type TSendEmailContent,
  type TSendEmailForm,
  type TSendList,
  type TTemplate,
  ZEmailDocument,
  type ZSaveTemplateRequest,
} from '@sendwell/contracts';
import { renderEmail } from '@sendwell/contracts/email/render';
import { STARTER_TEMPLATES } from '@sendwell/contracts/email/starters';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { notFound, ValidationError } from '../../platform/errors';
import { startAbTest } from '../ab-tests/ab-tests.service';
import {
  accountDomain,
  findAccountRow,
  listAccountRows,
  requireAccountRow,
  type TAccountRow,
} from '../accounts/accounts.service';
import { findUserProfile } from '../auth/auth.service';
import { getBalance } from '../credits/credits.service';
import { createSend, dailyCapOf, sentInWindow } from '../delivery/delivery.service';
import { countAudience, findListsByIds, findListsOfAccount } from '../lists/lists.service';
import { planRulesOf } from '../plans/plans.service';
import { verdictOf } from '../verification/verification.service';

const userOf = findUserProfile;

/** Where an SMTP or Gmail account sends from: its From Address, Gmail address or username, else the user's email. */
const smtpFromAddress = (row: TAccountRow, userEmail: string) =>
  [row.from_address, row.google_email, row.username].find((value) => value?.includes('@')) ?? userEmail;

const toSendAccount = (row: TAccountRow, userEmail: string): TSendAccount => ({
  id: row.id,
  name: row.name,
  provider: row.provider,
  domain: sendsAsSenderNameOnly(row.provider) ? '' : accountDomain(row, userEmail),
  fromAddress: sendsAsSenderNameOnly(row.provider) ? smtpFromAddress(row, userEmail) : '',
  active: row.is_primary,
});

/** The lists of one account the form offers, in name order. */
const listsOfAccount = (db: Executor, userId: number, accountId: number): Promise<TSendList[]> =>
  findListsOfAccount(db, userId, accountId);

/** The SMTP cap and what the account sent in the cap's window, the last 24 hours (0 and 0 when it has no cap). */
const capOf = async (db: Executor, row: TAccountRow) => {
  const cap = dailyCapOf(row);
  return {
    isSmtp: cap !== null,
    smtpLimit: cap ?? 0,
    dailyCount: cap === null ? 0 : await sentInWindow(db, row.id),
  };
};

/** Sendwell's starter templates (issue 46 §6), rendered from their documents, as the picker lists them. */
const starterTemplates = (): TTemplate[] =>
  STARTER_TEMPLATES.map((starter) => ({
    id: `starter:${starter.key}`,
    name: starter.name,
    subject: starter.subject,
    html: renderEmail(starter.document),
    document: starter.document,
    description: starter.description,
    builtIn: true,
  }));

/** The starter templates, then the user's own by name. */
export const listTemplates = async (db: Executor, userId: number): Promise<TTemplate[]> => {
  const rows = await db
    .selectFrom('templates')
    .select(['id', 'name', 'subject', 'html', 'document'])
    .where('user_id', '=', userId)
    .orderBy('name')
    .execute();
  return [
    ...starterTemplates(),
    ...rows.map((row) => ({ ...row, document: readDocument(row.document), description: '', builtIn: false })),
  ];
};

/** A stored document, as the schema reads it today; one that no longer reads opens in HTML mode. */
const readDocument = (stored: unknown) => {
  const parsed = ZEmailDocument.safeParse(stored);
  return parsed.success ? parsed.data : null;
};

/** `GET /api/email/send-email-content`: the page's accounts, the chosen one's lists, templates, cap and credits. */
export const sendEmailContent = async (
  platform: TPlatform,
  userId: number,
  accountId: number | undefined,
): Promise<TSendEmailContent> => {
  const [rows, user, plan, balance, templates] = await Promise.all([
    listAccountRows(platform.db, userId),
    userOf(platform.db, userId),
    planRulesOf(platform, platform.db, userId),
    getBalance(platform.db, userId),
    listTemplates(platform.db, userId),
  ]);
  const chosen = rows.find((row) => row.id === accountId) ?? rows.find((row) => row.is_primary) ?? rows[0] ?? null;
  const cap = chosen ? await capOf(platform.db, chosen) : { isSmtp: false, smtpLimit: 0, dailyCount: 0 };
  return {
    chosenAccount: chosen?.id ?? null,
    templates,
    accounts: rows.map((row) => toSendAccount(row, user.email)),
    mailingLists: chosen ? await listsOfAccount(platform.db, userId, chosen.id) : [],
    ...cap,
    ...balance,
    allowsScheduling: plan.allows_scheduling,
    timeZone: user.time_zone,
    // The configured price (0 with BILLING=off): Test My Mail and the spam test page gate on it.
    spamTestCredits: platform.config.spamTest.credits,
  };
};

/** `GET /api/email/get-mailing-lists/{accountId}`. */
export const accountLists = async (
  platform: TPlatform,
  userId: number,
  accountId: number,
): Promise<TAccountListsResponse> => {
  const row = await requireAccountRow(platform.db, userId, accountId);
  return {
    status: true,
    listData: await listsOfAccount(platform.db, userId, accountId),
    ...(await capOf(platform.db, row)),
  };
};

/**
 * `POST /api/email/get-duplicates`: addresses on more than one of the chosen lists, the
 * audience counted once per address, and how much of it is unverified. One pass over
 * the members of the chosen lists.
 */
export const findDuplicates = async (platform: TPlatform, userId: number, listIds: number[]) => {
  const owned = await findListsByIds(platform.db, userId, listIds);
  if (owned.length !== new Set(listIds).size) throw notFound('One of these mailing lists does not exist.');
  return countAudience(platform.db, userId, listIds, (address) => verdictOf(userId, address));
};

/**
 * The account and the sender a form names, checked the way the Send Email form checks them
 * (spec §5): the sender name for SMTP and Gmail, the alias at the account's domain
 * otherwise, and the delivery time when there is one. The spam test's form uses it too.
 */
export const resolveSender = async (
  platform: TPlatform,
  userId: number,
  form: Pick<TSendEmailForm, 'account' | 'from' | 'senderName' | 'alias' | 'useSubdomain'> &
    Partial<Pick<TSendEmailForm, 'delivery' | 'sendLater'>>,
) => {
  const [row, user, plan] = await Promise.all([
    findAccountRow(platform.db, userId, form.account),
    userOf(platform.db, userId),
    planRulesOf(platform, platform.db, userId),
  ]);
  if (!row) throw new ValidationError({ account: [SEND_MESSAGES.accountRequired] });
  const nameOnly = sendsAsSenderNameOnly(row.provider);
  const domain = nameOnly ? '' : accountDomain(row, user.email);
  const sender = senderPartsOf(form, row.provider, domain);
  const issues = sendFormIssues(
    { ...sender, delivery: form.delivery ?? '', sendLater: form.sendLater },
    { provider: row.provider, allowsScheduling: plan.allows_scheduling, timeZone: user.time_zone },
  );
  if (issues.length > 0) {
    throw new ValidationError(Object.fromEntries(issues.map((issue) => [issue.path, [issue.message]])));
  }
  return {
    account: row,
    timeZone: user.time_zone,
    fromName: sender.senderName,
    fromAddress: nameOnly ? smtpFromAddress(row, user.email) : senderEmail(sender.alias, domain, sender.useSubdomain),
  };
};

/**
 * The Send Email form checked as a send needs it (spec §5): the sender for the account's
 * kind, lists of that account, the delivery time in the user's zone. Sending and editing a
 * scheduled email both take it.
 */
export const checkSendForm = async (platform: TPlatform, userId: number, form: TSendEmailForm) => {
  const { account: row, timeZone, fromName, fromAddress } = await resolveSender(platform, userId, form);
  const abIssues = abTestIssues({ ...form, isSendLater: isSendLater(form) });
  if (abIssues.length > 0) {
    throw new ValidationError(Object.fromEntries(abIssues.map((issue) => [issue.path, [issue.message]])));
  }
  const lists = await findListsByIds(platform.db, userId, form.to, row.id);
  if (lists.length !== new Set(form.to).size) {
    throw new ValidationError({ to: ['Please choose mailing lists of the chosen account.'] });
  }
  const deliverAt = isSendLater(form) ? parseDeliveryTime(form.delivery, timeZone) : null;
  // In the order the form named them, as the history's To column shows them.
  lists.sort((a, b) => form.to.indexOf(a.id) - form.to.indexOf(b.id));
  return { accountId: row.id, driver: row.driver, fromName, fromAddress, lists, deliverAt };
};

/**
 * `POST /api/email/send`: checks what the account's kind, the plan and the time zone
 * require, builds the sender (from its parts, or from `from` as the spec sends it), and
 * records the send (now, or at its delivery time when it is sent later).
 */
export const sendEmail = async (platform: TPlatform, userId: number, form: TSendEmailForm) => {
  const { accountId, fromName, fromAddress, deliverAt } = await checkSendForm(platform, userId, form);
  const send = {
    accountId,
    fromName,
    fromAddress,
    html: form.message,
    document: form.document,
    listIds: form.to,
    replyTo: form.reply,
    cc: form.cc,
    bcc: form.bcc,
    trackOpens: form.trackOpens,
    trackClicks: form.trackClicks,
  };
  // An A/B subject test (issue 31 §4) is a split send with its decision; always sent now.
  const sendId = form.abTest
    ? await startAbTest(platform, userId, send, form)
    : await createSend(platform, userId, { ...send, subject: form.subject, deliverAt });
  const scheduled = Boolean(deliverAt && deliverAt.getTime() > Date.now());
  return {
    status: true as const,
    message: scheduled ? SEND_MESSAGES.scheduled : form.abTest ? AB_MESSAGES.started : SEND_MESSAGES.sent,
    sendId,
    scheduled,
  };
};

export type TSaveTemplate = z.output<typeof ZSaveTemplateRequest>;

export const saveTemplate = async (platform: TPlatform, userId: number, input: TSaveTemplate): Promise<TTemplate> => {
  const row = await platform.db
    .insertInto('templates')
    .values({ user_id: userId, name: input.name, subject: input.subject, html: input.html, document: input.document })
    .returning(['id', 'name', 'subject', 'html', 'document'])
    .executeTakeFirstOrThrow();
  return { ...row, document: readDocument(row.document), description: '', builtIn: false };
};

/** Deletes one of the user's own templates; the starting templates cannot be deleted. */
export const deleteTemplate = async (platform: TPlatform, userId: number, id: number) => {
  const deleted = await platform.db
    .deleteFrom('templates')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (deleted.numDeletedRows === 0n) throw notFound('This template does not exist.');
};
