// About 700 lines on purpose: `runImport` is one transaction from the stored upload to the
// merged members (COPY into a staging table, batched merges, progress, the skipped-rows
// report) on one client; split, its client, counters and report would travel between files.
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CSV_MAX_RECORD_BYTES,
  firstRowProblem,
  hasCsvExtension,
  importNameColumns,
  isGenericEmail,
  joinName,
  LIST_MESSAGES,
  namePartKeyOf,
  readEmailCell,
  SKIP_REASONS,
  type TImportStatus,
  type TListImport,
  ZImportMapping,
} from '@sendwell/contracts';
import { sql } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import type { Executor } from '../../platform/db';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { defineJob } from '../../platform/queue';
import { publishToUser } from '../../platform/realtime';
import { notifyUser } from '../notifications/notifications.service';
import { CsvReadError, createCsvReportWriter, readCsvBatches, type TCsvReportWriter } from './csv-reader';
import { queueSearchIndexing } from './lists.jobs';
import * as repository from './lists.repository';
import { genericNames, mailgunOfList, providerError, requireList } from './lists.service';

/** Uploads are kept in the database in chunks of this size until the import has read them. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * The first bytes of an upload are kept in memory too, for the spec's first-row check
 * before the import is queued: room for a header and a first row at the 64 KB record limit.
 */
const HEAD_BYTES = 2 * CSV_MAX_RECORD_BYTES + 1024;
/**
 * An upload still 'uploading' this long after its last chunk was abandoned (its process died
 * mid-upload: a live request ends by HTTP_REQUEST_TIMEOUT_SECONDS, an hour by default).
 */
const ABANDONED_UPLOAD_HOURS = 2;
/** A failure that is not the file's (the database went away) is tried again this often. */
const IMPORT_RETRIES = 2;
/** Imports adding more rows than this refresh the members table's planner statistics. */
const ANALYZE_AFTER_ROWS = 10_000;
/** How often a running import writes its progress and tells the page. */
const PROGRESS_EVERY_MS = 500;
/**
 * Good rows are merged into the list this many at a time, each batch while the next is
 * parsed: PostgreSQL's merge (index entries, the list_id key check per row) and Node's
 * parse run side by side instead of one after the other (B3).
 */
const MERGE_BATCH_ROWS = 50_000;

type TMapping = z.output<typeof ZImportMapping>;

export const toImport = (row: repository.TImportRow): TListImport => ({
  ...row,
  // Rows still 'uploading' are never read for a page (see `visibleImports`).
  status: row.status as TImportStatus,
  created_at: row.created_at.toISOString(),
  finished_at: row.finished_at?.toISOString() ?? null,
});

/** The user's imports a page may show: not uploads still arriving. */
const visibleImports = (platform: TPlatform, userId: number) =>
  repository.importsQuery(platform.db, userId).where('list_imports.status', '<>', 'uploading');

export const findImport = async (platform: TPlatform, userId: number, importId: number) => {
  const row = await visibleImports(platform, userId).where('list_imports.id', '=', importId).executeTakeFirst();
  if (!row) throw notFound('This import does not exist.');
  return toImport(row);
};

/** Imports still running, and those that ended in the last hour, newest first. */
export const listActiveImports = async (platform: TPlatform, userId: number) => {
  const rows = await visibleImports(platform, userId)
    .where((eb) =>
      eb.or([
        eb('list_imports.status', 'in', ['queued', 'running']),
        eb('list_imports.finished_at', '>', new Date(Date.now() - 3600_000)),
      ]),
    )
    .orderBy('list_imports.id', 'desc')
    .limit(20)
    .execute();
  return rows.map(toImport);
};

/** One part of a multipart upload, as @fastify/multipart yields them. */
export type TUploadPart =
  | { type: 'file'; filename: string; file: Readable & { truncated?: boolean } }
  | { type: 'field'; fieldname: string; value: unknown };

/**
 * Stores one chunk of an upload still arriving, in its own statement (no transaction): the
 * connection goes back to the pool at once, whatever the client's pace. The row's
 * `updated_at` is its heartbeat; nothing is stored once the row was cleaned up.
 */
const storeUploadChunk = async (platform: TPlatform, importId: number, seq: number, data: Buffer) => {
  const stored = await sql`
    with alive as (
      update list_imports set updated_at = now() where id = ${importId} and status = 'uploading' returning id
    )
    insert into list_import_files (import_id, kind, seq, data)
    select id, 'upload', ${seq}, ${data} from alive`.execute(platform.db);
  if (!stored.numAffectedRows) throw new Error('The upload was abandoned before it finished.');
};

/** Uploads whose process died mid-upload; their chunks go with them (foreign key cascade). */
const deleteAbandonedUploads = (platform: TPlatform) =>
  sql`delete from list_imports
       where status = 'uploading' and updated_at < now() - make_interval(hours => ${ABANDONED_UPLOAD_HOURS})`.execute(
    platform.db,
  );

/** The first rows of an upload (from its first bytes), for the first-row check. */
const firstRowsOf = async (head: Buffer, isWholeFile: boolean) => {
  const rows: string[][] = [];
  try {
    for await (const batch of readCsvBatches(Readable.from([head]), { batchSize: 3 })) {
      rows.push(...batch.map((row) => row.cells));
      if (rows.length >= 3) break;
    }
  } catch (error) {
    // A file that cannot be read at all fails its import with the reader's message.
    if (!(error instanceof CsvReadError)) throw error;
    return null;
  }
  // The last row of a cut sample may be cut too.
  return isWholeFile || rows.length === 3 ? rows.slice(0, 2) : null;
};

/**
 * Takes an uploaded file for a list (the `file` part, with a `mapping` JSON field before or
 * after it). No database connection is held while the client sends (R25): each 1 MB chunk
 * is stored in its own short statement as it arrives, under an import row that stays
 * 'uploading' (seen by no page and no job); once the whole file is in, the mapping and the
 * spec's first-row rule are checked and one short transaction queues the import with its
 * job. A file under a chunk is stored in that transaction alone. Nothing is kept of an
 * upload that did not arrive whole or was refused. `ip` (the uploader's) goes with the
 * import: the consent record of the members it adds (`list_members.import_id`).
 */
export const startImport = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  parts: AsyncIterable<TUploadPart>,
  { ip = null }: { ip?: string | null } = {},
) => {
  await requireList(platform.db, userId, listId);
  await deleteAbandonedUploads(platform);
  let importId: number | null = null;
  let mappingText: string | null = null;
  let fileName: string | null = null;
  let seq = 0;
  let total = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const head: Buffer[] = [];
  let headBytes = 0;
  // One chunk is stored while the next one arrives.
  let storing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await storing;
    importId ??= (
      await repository.insertImport(platform.db, {
        user_id: userId,
        list_id: listId,
        file_name: (fileName ?? '').slice(0, 255),
        mapping: '{}',
        status: 'uploading',
        ip,
      })
    ).id;
    const id = importId;
    const chunkSeq = seq;
    seq += 1;
    storing = storeUploadChunk(platform, id, chunkSeq, data);
    // Handled when awaited; this keeps an early failure from being reported as unhandled.
    storing.catch(() => {});
  };
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.fieldname === 'mapping') mappingText = String(part.value);
        continue;
      }
      if (fileName !== null) {
        part.file.resume();
        continue;
      }
      fileName = part.filename || 'upload.csv';
      if (!hasCsvExtension(fileName)) throw new ValidationError({ file: [LIST_MESSAGES.csvFormat] });
      for await (const chunk of part.file as AsyncIterable<Buffer>) {
        if (headBytes < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headBytes));
          headBytes += Math.min(chunk.length, HEAD_BYTES - headBytes);
        }
        pending.push(chunk);
        pendingBytes += chunk.length;
        total += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      if (part.file.truncated) throw new HttpError(413, LIST_MESSAGES.csvTooLarge, 'FILE_TOO_LARGE');
    }
    await storing;
    if (fileName === null || total === 0) throw new ValidationError({ file: [LIST_MESSAGES.uploadFirst] });
    let mappingJson: unknown = null;
    try {
      mappingJson = JSON.parse(mappingText ?? 'null');
    } catch {}
    const parsed = ZImportMapping.safeParse(mappingJson);
    if (!parsed.success) {
      // A mapping without a usable email column gets the spec's words; any other mistake its own.
      const issue = parsed.error.issues[0];
      const isAboutEmail = !issue || issue.path.length === 0 || issue.path[0] === 'emailColumn';
      throw new ValidationError({ mapping: [isAboutEmail ? LIST_MESSAGES.selectEmail : issue.message] });
    }
    const mapping: TMapping = parsed.data;
    const firstRows = await firstRowsOf(Buffer.concat(head, headBytes), headBytes === total);
    const firstRowIssue = firstRows && firstRowProblem(firstRows, mapping);
    if (firstRowIssue) throw new ValidationError({ file: [firstRowIssue] });

    const last = pendingBytes > 0 ? Buffer.concat(pending, pendingBytes) : null;
    const queuedId = await platform.db.transaction().execute(async (trx) => {
      const details = {
        file_name: fileName!.slice(0, 255),
        mapping: JSON.stringify(mapping),
        bytes_total: total,
        ip,
      };
      let id = importId;
      if (id === null) {
        id = (await repository.insertImport(trx, { user_id: userId, list_id: listId, ...details })).id;
      } else {
        const queued = await trx
          .updateTable('list_imports')
          .set({ ...details, status: 'queued', updated_at: new Date() })
          .where('id', '=', id)
          .where('status', '=', 'uploading')
          .executeTakeFirst();
        if (!queued.numUpdatedRows) throw new Error('The upload was abandoned before it finished.');
      }
      if (last) await repository.insertImportChunk(trx, id, 'upload', seq, last);
      await platform.queue.enqueue(importListJob, { importId: id }, { executor: trx });
      return id;
    });
    return await findImport(platform, userId, queuedId);
  } catch (error) {
    // The upload's own failure is the one to report; a chunk being stored is only waited for.
    await storing.catch(() => {});
    const abandoned = importId;
    if (abandoned !== null) {
      await platform.db
        .deleteFrom('list_imports')
        .where('id', '=', abandoned)
        .where('status', '=', 'uploading')
        .execute()
        .catch((cleanupError: unknown) =>
          platform.log.warn({ err: cleanupError, importId: abandoned }, 'could not delete an abandoned upload'),
        );
    }
    throw error;
  }
};

/**
 * The stored upload, chunk by chunk, as a stream the CSV reader takes. The next chunk is
 * fetched while the reader works on this one.
 */
async function* storedFile(platform: TPlatform, importId: number, kind: 'upload' | 'report') {
  let next = repository.findImportChunk(platform.db, importId, kind, 0);
  for (let seq = 0; ; seq += 1) {
    const chunk = await next;
    if (!chunk) return;
    next = repository.findImportChunk(platform.db, importId, kind, seq + 1);
    // Awaited on the next turn; a reader that stops early must not leave it unhandled.
    next.catch(() => {});
    yield chunk;
  }
}

/** The skipped-rows report of an import the caller has already found for its user. */
export const importReportChunks = (platform: TPlatform, importId: number) => storedFile(platform, importId, 'report');

/** COPY's text format: backslash, tab and line breaks escaped. */
const copyText = (value: string) =>
  value.includes('\\') || value.includes('\t') || value.includes('\n') || value.includes('\r')
    ? value.replace(/[\\\t\n\r]/g, (character) =>
        character === '\\' ? '\\\\' : character === '\t' ? '\\t' : character === '\n' ? '\\n' : '\\r',
      )
    : value;

type TCounts = {
  bytes_read: number;
  rows_read: number;
  added: number;
  updated: number;
  skipped: number;
  duplicates: number;
  skipped_reasons: Record<string, number>;
};

/**
 * One batch of staged rows into the list. Within the batch the last row of an address wins
 * (sorted by address, so the unique index is written in order); across batches a later row
 * updates what an earlier one inserted, so for a member this import adds, the file's last
 * row of the address is what the list keeps. A member already on the list keeps its name
 * when the row's is empty and gets the row's custom fields merged over its own. Members
 * that were on the list before are remembered in `import_updated`, so one updated twice by
 * the file counts once. `created_at = now()` tells this import's own members (now() is the
 * transaction's start).
 */
const MERGE_BATCH_SQL = `
  with incoming as (
    select distinct on (lower(email)) email, fullname, fields
      from import_rows
     order by lower(email), line desc
  ), written as (
    insert into list_members as m (user_id, list_id, account_id, email, fullname, fields, import_id)
    select $1, $2, $3, email, fullname, fields, $4 from incoming
    on conflict (list_id, lower(email)) do update
       set email = case when m.created_at = now() then excluded.email else m.email end,
           fullname = case when m.created_at = now() or excluded.fullname <> '' then excluded.fullname
                           else m.fullname end,
           fields = case when m.created_at = now() then excluded.fields else m.fields || excluded.fields end,
           updated_at = now()
    returning m.id, (xmax = 0) as inserted, m.created_at = now() as is_ours
  ), earlier as (
    insert into import_updated (id) select id from written where not is_ours
    on conflict do nothing
    returning 1
  )
  select count(*) filter (where inserted)::int as added,
         (select count(*)::int from earlier) as updated
    from written`;

const COPY_ROWS_SQL = 'copy import_rows (line, email, fullname, fields) from stdin';

/**
 * Reads the file, stages the good rows with COPY and merges them into the list batch by
 * batch, all in one transaction: a file that breaks halfway leaves the list exactly as it
 * was. Invalid rows are skipped and written to a report; duplicates (in the file or on the
 * list) are merged.
 */
/** The name columns whose header names a part of a name, as the fields they are also kept as. */
const namePartFieldsOf = (
  header: readonly string[],
  nameColumns: readonly number[],
  fields: readonly { column: number; key: string }[],
) =>
  nameColumns.flatMap((column) => {
    const key = namePartKeyOf(header[column]);
    return key && !fields.some((field) => field.key === key) ? [{ column, key }] : [];
  });

const runImport = async (platform: TPlatform, importId: number, signal: AbortSignal, isLastTry: boolean) => {
  const claimed = await platform.db
    .updateTable('list_imports')
    .set({ status: 'running', stage: 'reading', updated_at: new Date() })
    .where('id', '=', importId)
    .where('status', 'in', ['queued', 'running'])
    .returning(['user_id', 'list_id', 'mapping', 'bytes_total'])
    .executeTakeFirst();
  if (!claimed) return;
  const { user_id: userId, list_id: listId } = claimed;
  const mapping = claimed.mapping as TMapping;
  const nameColumns = importNameColumns(mapping);
  const generic = genericNames(platform);
  const counts: TCounts = {
    bytes_read: 0,
    rows_read: 0,
    added: 0,
    updated: 0,
    skipped: 0,
    duplicates: 0,
    skipped_reasons: {},
  };
  const reportPath = path.join(os.tmpdir(), `sendwell-import-${importId}-${randomUUID()}.csv`);
  let report = null as TCsvReportWriter | null;
  let stage: 'reading' | 'saving' = 'reading';

  const announce = async (status: 'running' | 'finished' | 'failed', error: string | null = null) => {
    const payload = {
      id: importId,
      list_id: listId,
      status,
      stage: status === 'running' ? stage : ('done' as const),
      bytes_total: claimed.bytes_total,
      error,
      ...counts,
    };
    const { skipped_reasons: _reasons, ...event } = payload;
    // The page's progress bar only: the import goes on, and the page reads the row when it opens.
    await publishToUser(platform.db, userId, 'ListImportProgressEvent', event).catch((publishError: unknown) =>
      platform.log.warn({ err: publishError, importId }, 'could not publish an import progress event'),
    );
  };
  let lastProgress = 0;
  const progress = async (force = false) => {
    if (!force && Date.now() - lastProgress < PROGRESS_EVERY_MS) return;
    lastProgress = Date.now();
    await repository.updateImport(platform.db, importId, {
      stage,
      bytes_read: counts.bytes_read,
      rows_read: counts.rows_read,
      skipped: counts.skipped,
      skipped_reasons: JSON.stringify(counts.skipped_reasons),
    });
    await announce('running');
  };
  const skip = async (line: number, reason: string, cells: string[]) => {
    counts.skipped += 1;
    counts.skipped_reasons[reason] = (counts.skipped_reasons[reason] ?? 0) + 1;
    report ??= createCsvReportWriter(reportPath, ['line', 'reason', 'row']);
    await report.write([String(line), reason, ...cells]);
  };

  const client = await platform.pool.connect();
  let isInTransaction = false;
  // The batch being merged while the next one is parsed; its failure is seen when awaited.
  let merging: Promise<void> = Promise.resolve();
  let staged = 0;
  try {
    await client.query('begin');
    isInTransaction = true;
    // A batch's merge sorts it by address: in memory, not in temporary files.
    await client.query("set local work_mem = '64MB'");
    // One import at a time per list; deleting the list waits for it too.
    const locked = await client.query(
      'select account_id from mailing_lists where id = $1 and user_id = $2 for update',
      [listId, userId],
    );
    if (locked.rowCount === 0) throw new CsvReadError('The list was deleted before the import ran.');
    const accountId = Number(locked.rows[0].account_id);
    await client.query(
      'create temp table import_rows (line integer, email text, fullname text, fields jsonb) on commit drop',
    );
    await client.query('create temp table import_updated (id bigint primary key) on commit drop');

    /**
     * Merges a batch into the list. Its rows are COPY text in Buffers, one per parsed piece of
     * the file: memory outside the V8 heap, which is given back as soon as the batch is merged
     * (held as strings across a merge, they outlived the young generation and piled up as
     * old-generation garbage: +200 MB at a million rows).
     */
    const mergeBatch = async (pieces: Buffer[]) => {
      await pipeline(Readable.from(pieces), client.query(copyFrom(COPY_ROWS_SQL)));
      const merged = await client.query(MERGE_BATCH_SQL, [userId, listId, accountId, importId]);
      const result = merged.rows[0] as { added: number; updated: number };
      counts.added += result.added;
      counts.updated += result.updated;
      await client.query('truncate import_rows');
    };
    let isHeader = mapping.hasHeaders;
    // Name columns headed 'First Name', 'Last Name'… are kept as fields too (issue 46 §5).
    let namePartFields: { column: number; key: string }[] = [];
    let pieces: Buffer[] = [];
    let batchStaged = 0;
    for await (const batch of readCsvBatches(storedFile(platform, importId, 'upload'), {
      signal,
      onBytes: (bytes) => {
        counts.bytes_read = bytes;
      },
    })) {
      let text = '';
      for (const row of batch) {
        if (isHeader) {
          isHeader = false;
          namePartFields = namePartFieldsOf(row.cells, nameColumns, mapping.fields);
          continue;
        }
        counts.rows_read += 1;
        const cells = row.cells;
        const { email, problem } = readEmailCell(cells[mapping.emailColumn] ?? '');
        if (email === null) {
          await skip(row.line, problem, cells);
          continue;
        }
        if (mapping.removeGeneric && isGenericEmail(email, generic)) {
          await skip(row.line, SKIP_REASONS.generic, cells);
          continue;
        }
        const fullname = joinName(cells, nameColumns);
        let fields = '{}';
        if (mapping.fields.length > 0 || namePartFields.length > 0) {
          const values: Record<string, string> = {};
          for (const field of [...namePartFields, ...mapping.fields]) {
            const value = cells[field.column];
            // Empty cells are skipped for custom fields (spec §5).
            if (value) values[field.key] = value.slice(0, 1000);
          }
          fields = JSON.stringify(values);
        }
        text += `${row.line}\t${copyText(email)}\t${copyText(fullname)}\t${copyText(fields)}\n`;
        batchStaged += 1;
        staged += 1;
      }
      if (text) pieces.push(Buffer.from(text));
      if (batchStaged >= MERGE_BATCH_ROWS) {
        await merging;
        merging = mergeBatch(pieces);
        // Seen when awaited; this keeps a failure during the next parse from going unhandled.
        merging.catch(() => {});
        pieces = [];
        batchStaged = 0;
      }
      await progress();
    }
    await merging;
    stage = 'saving';
    await progress(true);
    if (pieces.length > 0) await mergeBatch(pieces);
    counts.duplicates = staged - counts.added - counts.updated;
    await client.query('delete from list_import_files where import_id = $1 and kind = $2', [importId, 'upload']);
    await client.query('commit');
    isInTransaction = false;
  } catch (error) {
    // The failure that stopped the import is the one to report; a batch being merged is only waited for.
    await merging.catch(() => {});
    // A rollback that fails leaves a broken connection: the pool is told to throw it away.
    const rollbackError = isInTransaction
      ? await client.query('rollback').then(
          () => undefined,
          (failure: unknown) => failure as Error,
        )
      : undefined;
    client.release(rollbackError);
    // The skipped-rows report is thrown away below; a stream that fails to close is gone too.
    await report?.end().catch(() => {});
    await rm(reportPath, { force: true });
    if (error instanceof CsvReadError || signal.aborted || isLastTry) {
      const message =
        error instanceof CsvReadError
          ? error.message
          : signal.aborted
            ? 'The import was stopped.'
            : `The import failed: ${(error as Error).message}`;
      await failImport(platform, importId, message, counts, { userId, listId });
      await announce('failed', message);
      return;
    }
    throw error;
  }
  client.release();

  // The skipped-rows report, kept with the import for download.
  let hasReport = false;
  if (report) {
    await report.end();
    let seq = 0;
    for await (const chunk of createReadStream(reportPath, { highWaterMark: CHUNK_BYTES })) {
      await repository.insertImportChunk(platform.db, importId, 'report', seq, chunk as Buffer);
      seq += 1;
    }
    hasReport = seq > 0;
    await rm(reportPath, { force: true });
  }
  await platform.db.transaction().execute(async (trx) => {
    await repository.updateImport(trx, importId, {
      status: 'finished',
      stage: 'done',
      bytes_read: claimed.bytes_total,
      rows_read: counts.rows_read,
      added: counts.added,
      updated: counts.updated,
      skipped: counts.skipped,
      duplicates: counts.duplicates,
      skipped_reasons: JSON.stringify(counts.skipped_reasons),
      has_report: hasReport,
      finished_at: new Date(),
    });
    await notifyImportEnded(platform, trx, { userId, listId, counts, error: null });
  });
  counts.bytes_read = claimed.bytes_total;
  await announce('finished');
  // The new members become searchable through the index a moment later (until then a
  // search scans them): the import never waits for it.
  await queueSearchIndexing(platform, listId).catch((error: unknown) =>
    platform.log.error({ err: error }, 'could not queue member search indexing'),
  );
  // A large merge changes the table's shape: fresh statistics keep the member pages on
  // their indexes instead of waiting for autovacuum. After 'finished': nobody waits on it.
  if (counts.added > ANALYZE_AFTER_ROWS)
    await sql`analyze list_members`
      .execute(platform.db)
      .catch((analyzeError: unknown) =>
        platform.log.warn({ err: analyzeError, listId }, 'could not refresh list_members statistics after an import'),
      );
  await pushImportToProvider(platform, userId, listId, importId);
  // The import's verification offer: started once the members are in (the list turns
  // Processing...); when it cannot start, the user is told and the import stands.
  const verify = platform.hooks.verifyImportedList;
  if (mapping.verify && verify && counts.added + counts.updated > 0) {
    await verify(platform, userId, listId).catch((error: unknown) =>
      platform.log.error({ err: error, importId }, 'could not start the verification of an imported list'),
    );
  }
};

const failImport = (
  platform: TPlatform,
  importId: number,
  message: string,
  counts: TCounts,
  owner: { userId: number; listId: number },
) =>
  platform.db.transaction().execute(async (trx) => {
    await repository.updateImport(trx, importId, {
      status: 'failed',
      stage: 'done',
      error: message,
      rows_read: counts.rows_read,
      added: 0,
      updated: 0,
      skipped: counts.skipped,
      skipped_reasons: JSON.stringify(counts.skipped_reasons),
      finished_at: new Date(),
    });
    await notifyImportEnded(platform, trx, { ...owner, counts, error: message });
  });

/**
 * Tells the user an import ended, in the transaction that records it (a file import runs in
 * the background; the user may have left the page long ago).
 */
const notifyImportEnded = async (
  platform: TPlatform,
  trx: Executor,
  ended: { userId: number; listId: number; counts: TCounts; error: string | null },
) => {
  const list = await repository.findList(trx, ended.userId, ended.listId);
  const name = list ? `“${list.name}”` : 'your list';
  const figure = (count: number) => count.toLocaleString('en-US');
  const { added, updated, skipped } = ended.counts;
  await notifyUser(
    platform,
    ended.error === null
      ? {
          userId: ended.userId,
          title: `Your import into ${name} finished`,
          body: `${figure(added)} added, ${figure(updated)} updated, ${figure(skipped)} skipped.`,
          link: list ? `/mailing-lists/detail/${list.account_id}/${list.id}` : '/mailing-lists',
        }
      : {
          userId: ended.userId,
          title: `Your import into ${name} failed`,
          body: `${ended.error} Nothing on the list was changed.`,
          link: list ? `/mailing-lists/detail/${list.account_id}/${list.id}` : '/mailing-lists',
        },
    trx,
  );
};

/**
 * For a Mailgun list, the imported members reach Mailgun too, 1,000 per call, after the
 * import committed. A failure there is recorded on the import; the members stay here.
 */
const pushImportToProvider = async (platform: TPlatform, userId: number, listId: number, importId: number) => {
  const list = await repository.findList(platform.db, userId, listId);
  if (!list?.provider_address) return;
  const mailgun = await mailgunOfList(platform, platform.db, list);
  if (!mailgun) return;
  const started = await platform.db
    .selectFrom('list_imports')
    .select('created_at')
    .where('id', '=', importId)
    .executeTakeFirstOrThrow();
  try {
    let afterId = 0;
    for (;;) {
      const rows = await platform.db
        .selectFrom('list_members')
        .select(['id', 'email', 'fullname', 'subscribed'])
        .where('list_id', '=', listId)
        .where('updated_at', '>=', started.created_at)
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(1000)
        .execute();
      if (rows.length === 0) break;
      await mailgun.upsertMembers(
        list.provider_address,
        rows.map((row) => ({ address: row.email, name: row.fullname, subscribed: row.subscribed, vars: {} })),
      );
      afterId = rows.at(-1)!.id;
    }
  } catch (error) {
    const message = (providerError(error) as Error).message;
    await repository.updateImport(platform.db, importId, {
      error: `Imported here, but Mailgun refused the members: ${message}`,
    });
  }
};

export const importListJob = defineJob({
  name: 'lists.import',
  schema: z.object({ importId: z.number().int().positive() }),
  // Reading and merging a large file is heavy: one at a time per worker process.
  concurrency: 1,
  queue: { retryLimit: IMPORT_RETRIES, expireInSeconds: 3600 },
  handler: ({ importId }, platform, { signal, retryCount }) =>
    runImport(platform, importId, signal, retryCount >= IMPORT_RETRIES),
});
