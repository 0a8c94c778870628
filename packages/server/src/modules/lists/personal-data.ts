import { sql } from 'kysely';
import type { Executor } from '../../platform/db';
import { countRows, deleteRows, isAddress } from '../../platform/queries';
import type { TPersonalData } from '../module';
import { findList } from './lists.repository';
import { mailgunOfList, removeAtProvider } from './lists.service';

/**
 * The lists module's part of a person's data (issue 48 §4): the address's memberships on
 * the user's lists, their consent records and search terms, and the skipped-rows reports
 * of imports that name it. Memberships are found through the user's lists, one probe of
 * the (list_id, lower(email)) index each.
 */

const membersOf = (db: Executor, userId: number, email: string) =>
  db
    .selectFrom('list_members')
    .selectAll()
    .where('list_id', 'in', (eb) => eb.selectFrom('mailing_lists').select('id').where('user_id', '=', userId))
    .where(isAddress(email))
    .orderBy('id')
    .execute();

/**
 * The user's import reports (the skipped rows, kept as CSV in chunks) whose text names the
 * address, with the lines that do. A report is read whole, so an address across two
 * chunks is found too; reports hold only the rows an import skipped.
 */
const reportsNaming = async (db: Executor, userId: number, email: string) =>
  (
    await sql<{ import_id: number; text: string }>`
      select r.import_id, r.text
        from (select f.import_id, convert_from(string_agg(f.data, ''::bytea order by f.seq), 'UTF8') as text
                from list_import_files f
                join list_imports i on i.id = f.import_id
               where i.user_id = ${userId} and f.kind = 'report'
               group by f.import_id) r
       where strpos(lower(r.text), ${email.toLowerCase()}) > 0`.execute(db)
  ).rows.map((row) => ({
    import_id: Number(row.import_id),
    lines: row.text.split(/\r?\n/).filter((line) => line.toLowerCase().includes(email.toLowerCase())),
  }));

export const listsPersonalData: TPersonalData = {
  find: async (db, userId, email) => {
    const members = await membersOf(db, userId, email);
    const ids = members.map((member) => member.id);
    return {
      list_members: members,
      member_consents:
        ids.length === 0
          ? []
          : await db
              .selectFrom('member_consents')
              .select([
                'id',
                'list_id',
                'member_id',
                'source',
                'source_detail',
                sql<string | null>`host(ip)`.as('ip'),
                'user_agent',
                'consent_text',
                'confirm_expires_at',
                'confirmation_sent_at',
                'confirmations_sent',
                'confirmed_at',
                sql<string | null>`host(confirmed_ip)`.as('confirmed_ip'),
                'created_at',
              ])
              .where('member_id', 'in', ids)
              .orderBy('id')
              .execute(),
      list_member_search:
        ids.length === 0
          ? []
          : await db.selectFrom('list_member_search').selectAll().where('member_id', 'in', ids).execute(),
      list_import_files: await reportsNaming(db, userId, email),
    };
  },
  erase: async (platform, trx, userId, email) => {
    const members = await membersOf(trx, userId, email);
    // A Mailgun list keeps its own copy of its members: the address leaves it too (a failure
    // there undoes the erase, which the user may try again).
    for (const listId of new Set(members.map((member) => member.list_id))) {
      const list = await findList(trx, userId, listId);
      if (list?.provider_address) {
        await removeAtProvider(await mailgunOfList(platform, trx, list), list, [
          members.find((member) => member.list_id === listId)!.email,
        ]);
      }
    }
    const ids = members.map((member) => member.id);
    // Consent records and search terms go with their member (on delete cascade); counted first.
    const consents =
      ids.length === 0 ? 0 : await countRows(trx.selectFrom('member_consents').where('member_id', 'in', ids));
    const searchTerms =
      ids.length === 0 ? 0 : await countRows(trx.selectFrom('list_member_search').where('member_id', 'in', ids));
    await deleteRows(trx, 'list_members', members);
    // A skipped-rows report that names the address goes whole: its other lines say little
    // without it, and a report cut inside a CSV row would mislead.
    const reports = await reportsNaming(trx, userId, email);
    let reportChunks = 0;
    if (reports.length > 0) {
      const importIds = reports.map((report) => report.import_id);
      const deleted = await trx
        .deleteFrom('list_import_files')
        .where('import_id', 'in', importIds)
        .where('kind', '=', 'report')
        .executeTakeFirst();
      reportChunks = Number(deleted.numDeletedRows);
      await trx
        .updateTable('list_imports')
        .set({ has_report: false, updated_at: new Date() })
        .where('id', 'in', importIds)
        .execute();
    }
    return {
      list_members: members.length,
      member_consents: consents,
      list_member_search: searchTerms,
      list_import_files: reportChunks,
    };
  },
};
