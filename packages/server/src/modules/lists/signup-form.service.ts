import {
  safeCell,
  signupFormHtml,
  type TSignupFields,
  type TSignupSettings,
  ZSignupFields,
  type ZUpdateSignupSettings,
} from '@sendwell/contracts';
import { stringify } from 'csv-stringify/sync';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { slicesAfter } from '../../platform/paging';
import { publicUrl } from '../../platform/public-url';
import { findMembersWithConsent } from './consent.repository';
import * as repository from './lists.repository';
import { requireList } from './lists.service';

/**
 * A list's signup form as its owner sets it up (issue 48 §1): the fields it asks for,
 * double opt-in, the words a person agrees to and the confirmation email; and the list's
 * export with each member's consent. The public side (the hosted page, the confirmation,
 * the emails) is the `signup` module's.
 */

/** A list's stored form fields, read as the schema says (a row written before a field was added reads with its default). */
export const formFieldsOf = (list: Pick<repository.TListRow, 'form_fields'>): TSignupFields =>
  ZSignupFields.parse(list.form_fields ?? undefined);

/** Where the hosted page is, and where a form posts. */
export const formUrls = (platform: TPlatform, formKey: string) => ({
  page: `${publicUrl(platform)}/subscribe/${formKey}`,
  action: `${publicUrl(platform)}/api/subscribe/${formKey}`,
});

const toSettings = (platform: TPlatform, list: repository.TListRow): TSignupSettings => {
  const fields = formFieldsOf(list);
  const urls = formUrls(platform, list.form_key);
  return {
    double_opt_in: list.double_opt_in,
    form_fields: fields,
    consent_text: list.consent_text,
    confirmation_subject: list.confirmation_subject,
    confirmation_html: list.confirmation_html,
    form_url: urls.page,
    form_action: urls.action,
    embed_html: signupFormHtml({
      action: urls.action,
      listName: list.name,
      fields,
      consentText: list.consent_text,
    }),
  };
};

export const getSignupSettings = async (platform: TPlatform, userId: number, listId: number) =>
  toSettings(platform, await requireList(platform.db, userId, listId));

export const updateSignupSettings = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  request: z.output<typeof ZUpdateSignupSettings>,
) => {
  await requireList(platform.db, userId, listId);
  await repository.updateList(platform.db, userId, listId, {
    double_opt_in: request.double_opt_in,
    form_fields: JSON.stringify(request.form_fields),
    consent_text: request.consent_text,
    confirmation_subject: request.confirmation_subject,
    confirmation_html: request.confirmation_html,
  });
  return getSignupSettings(platform, userId, listId);
};

/** The list a public form names by its key (any user's: the key is the capability), or nothing. */
export const findListByFormKey = (db: Executor, formKey: string) =>
  /^[0-9a-f]{32}$/.test(formKey)
    ? db
        .selectFrom('mailing_lists')
        .selectAll()
        .where('form_key', '=', formKey)
        .executeTakeFirst()
        .then((row) => row && { ...row, form_fields: formFieldsOf(row) })
    : Promise.resolve(undefined);

export type TFormList = NonNullable<Awaited<ReturnType<typeof findListByFormKey>>>;

/** One of the user's lists with its form settings (the confirmation email an API add sends). */
export const findFormList = (db: Executor, userId: number, listId: number): Promise<TFormList | undefined> =>
  db
    .selectFrom('mailing_lists')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', listId)
    .executeTakeFirst()
    .then((row) => row && { ...row, form_fields: formFieldsOf(row) });

const EXPORT_SLICE = 2_000;

const statusOf = (member: { subscribed: boolean; unconfirmed: boolean }) =>
  member.subscribed ? 'subscribed' : member.unconfirmed ? 'unconfirmed' : 'unsubscribed';

/**
 * The list's members as CSV with their consent (the latest record: a signup with what was
 * agreed to and its confirmation, a hand-made add, or the import that brought them),
 * streamed in keyset slices; every cell through `safeCell` (R17).
 */
export async function* exportListMembers(platform: TPlatform, userId: number, listId: number) {
  await requireList(platform.db, userId, listId);
  yield `\uFEFF${stringify([
    [
      'Email',
      'Name',
      'Status',
      'Verified',
      'Fields',
      'Added',
      'Consent source',
      'Consent detail',
      'Agreed at',
      'Consent IP',
      'Consent text',
      'Confirmed at',
      'Confirmed from IP',
    ],
  ])}`;
  const slices = slicesAfter((after) => findMembersWithConsent(platform.db, userId, listId, after, EXPORT_SLICE));
  for await (const rows of slices) {
    yield stringify(
      rows.map((row) =>
        [
          row.email,
          row.fullname,
          statusOf(row),
          row.verified ? 'yes' : 'no',
          Object.keys(row.fields).length > 0 ? JSON.stringify(row.fields) : '',
          row.created_at.toISOString(),
          row.source ?? '',
          row.detail ?? '',
          row.agreed_at?.toISOString() ?? '',
          row.ip ?? '',
          row.consent_text ?? '',
          row.confirmed_at?.toISOString() ?? '',
          row.confirmed_ip ?? '',
        ].map(safeCell),
      ),
    );
  }
}
