import {
  CAMPAIGN_MESSAGES,
  isGenericEmail,
  RECIPIENTS_MAX,
  readEmailCell,
  type TRecipientsSummary,
  type ZCampaignRecipientLists,
  type ZCampaignRecipients,
} from '@sendwell/contracts';
import type { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { notFound, ValidationError } from '../../platform/errors';
import { findListsByIds, genericNames, type TListUsageCheck } from '../lists/lists.service';
import {
  countSourceRows,
  deleteSources,
  draftsUsingList,
  insertListSource,
  insertRowsSource,
  remakeRecipients,
  sourcesOf,
} from './campaign-sources';
import { countRecipients, countSuppressedRecipients, deleteAllRecipients, reachStep } from './campaigns.repository';
import { requireDraft } from './campaigns.service';

/**
 * The wizard's recipients step (spec §2, issue 47): files and the manual table add sources, a
 * source can be removed again, mailing lists add their members; Skip moves on when there is
 * nothing yet. Each change makes the draft's recipients again (`campaign-sources.ts`).
 */

/** Where the draft's recipients stand, with the figures of the source just added. */
const summaryOf = async (
  platform: TPlatform,
  userId: number,
  draftId: number,
  added: { added: number; skipped: number },
): Promise<TRecipientsSummary> => {
  const [count, suppressed, files] = await Promise.all([
    countRecipients(platform.db, draftId),
    countSuppressedRecipients(platform.db, userId, draftId),
    sourcesOf(platform.db, draftId),
  ]);
  return {
    count,
    suppressed,
    files,
    duplicates: files.reduce((total, file) => total + file.duplicates, 0),
    ...added,
  };
};

/** A file's or the manual table's name in the list of files: its own, else what it is and its number. */
const sourceName = (input: z.output<typeof ZCampaignRecipients>, taken: number) =>
  input.fileName || (input.source === 'manual' ? `Added manually (${taken + 1})` : `File ${taken + 1}`);

/**
 * `PUT /api/campaigns/save-campaign/2`: a file's rows (or the manual table's), addresses read
 * by the list import's rules, generic ones left out when asked, added as a source of their own.
 * `replace` takes every earlier source away first; `skip` moves on without any.
 */
export const saveRecipients = async (
  platform: TPlatform,
  userId: number,
  input: z.output<typeof ZCampaignRecipients>,
) => {
  const draft = await requireDraft(platform.db, userId, input.temporary);
  if (input.recipients.length === 0) {
    await reachStep(platform.db, draft.id, 3);
    return summaryOf(platform, userId, draft.id, { added: 0, skipped: 0 });
  }
  const generic = genericNames(platform);
  const rows: { email: string; name: string; variables: Record<string, string> }[] = [];
  for (const recipient of input.recipients) {
    const email = readEmailCell(recipient.email).email;
    if (!email || (input.removeGeneric && isGenericEmail(email, generic))) continue;
    const variables = Object.fromEntries(
      Object.entries(recipient.variables).filter(([key, value]) => key.trim() && value.trim() !== ''),
    );
    rows.push({ email, name: recipient.name.trim(), variables });
  }
  if (rows.length === 0) throw new ValidationError({ recipients: ['No address in this file could be added.'] });
  const sourceId = await platform.db.transaction().execute(async (trx) => {
    if (input.replace) await deleteSources(trx, draft.id);
    const held = await countSourceRows(trx, draft.id);
    if (held + rows.length > RECIPIENTS_MAX) {
      throw new ValidationError({
        recipients: [
          `A campaign takes at most ${RECIPIENTS_MAX.toLocaleString('en-US')} addresses from files; its files hold ${held.toLocaleString('en-US')} and this one ${rows.length.toLocaleString('en-US')}. Remove a file first.`,
        ],
      });
    }
    const taken = input.replace ? [] : await sourcesOf(trx, draft.id);
    const id = await insertRowsSource(
      trx,
      draft,
      {
        kind: input.source,
        name: sourceName(input, taken.filter((source) => source.kind === input.source).length),
        rows: input.recipients.length,
        skipped: input.recipients.length - rows.length,
      },
      rows,
    );
    await remakeRecipients(trx, draft);
    return id;
  });
  await reachStep(platform.db, draft.id, 3);
  const summary = await summaryOf(platform, userId, draft.id, { added: 0, skipped: 0 });
  const source = summary.files.find((file) => file.id === sourceId)!;
  return { ...summary, added: source.added, skipped: source.skipped };
};

/**
 * `POST /api/campaigns/recipient-lists`: mailing lists of the campaign's account as sources;
 * their subscribed members less the suppressed become recipients, as Send Email takes them
 * (a list already among the sources is not added twice).
 */
export const addRecipientLists = async (
  platform: TPlatform,
  userId: number,
  input: z.output<typeof ZCampaignRecipientLists>,
) => {
  const draft = await requireDraft(platform.db, userId, input.temporary);
  const wanted = [...new Set(input.listIds)];
  const owned = await findListsByIds(platform.db, userId, wanted);
  if (owned.length !== wanted.length) throw notFound('One of these mailing lists does not exist.');
  if (draft.account_id !== null) {
    const ofAccount = await findListsByIds(platform.db, userId, wanted, draft.account_id);
    if (ofAccount.length !== wanted.length) {
      throw new ValidationError({ listIds: ['Please choose mailing lists of the campaign’s sending account.'] });
    }
  }
  await platform.db.transaction().execute(async (trx) => {
    const present = new Set((await sourcesOf(trx, draft.id)).map((source) => source.list_id));
    // In the order they were chosen: an earlier list gives a shared address first.
    for (const listId of wanted) {
      const list = owned.find((candidate) => candidate.id === listId)!;
      if (!present.has(list.id)) await insertListSource(trx, draft, list);
    }
    await remakeRecipients(trx, draft);
  });
  if ((await countRecipients(platform.db, draft.id)) > 0) await reachStep(platform.db, draft.id, 3);
  const summary = await summaryOf(platform, userId, draft.id, { added: 0, skipped: 0 });
  const listed = summary.files.filter((file) => file.list_id !== null && wanted.includes(file.list_id));
  return {
    ...summary,
    added: listed.reduce((total, file) => total + file.added, 0),
    skipped: listed.reduce((total, file) => total + file.skipped, 0),
  };
};

/**
 * `POST /api/campaigns/remove-recipients` (spec §7: temporary, index): the source at `index`
 * of the list of files taken away with the recipients only it gave, or every source without
 * an index. Answers how many recipients went.
 */
export const removeDraftRecipients = async (
  platform: TPlatform,
  userId: number,
  input: { temporary: string; index?: number | undefined },
) => {
  const draft = await requireDraft(platform.db, userId, input.temporary);
  const before = await countRecipients(platform.db, draft.id);
  await platform.db.transaction().execute(async (trx) => {
    if (input.index === undefined) {
      await deleteSources(trx, draft.id);
      await deleteAllRecipients(trx, draft.id);
      return;
    }
    const source = (await sourcesOf(trx, draft.id))[input.index];
    if (!source) throw notFound(CAMPAIGN_MESSAGES.removeFailed);
    await deleteSources(trx, draft.id, [source.id]);
    await remakeRecipients(trx, draft);
  });
  const {
    added: _added,
    skipped: _skipped,
    ...summary
  } = await summaryOf(platform, userId, draft.id, {
    added: 0,
    skipped: 0,
  });
  return { ...summary, removed: before - summary.count };
};

/** What of this module uses a list, for its delete modal: unsaved campaigns taking their recipients from it. */
export const campaignListUsage: TListUsageCheck = async (db, userId, listId) =>
  (await draftsUsingList(db, userId, listId)).map((row) => ({
    type: 'drip' as const,
    id: row.id,
    name: row.title || '(untitled)',
  }));
