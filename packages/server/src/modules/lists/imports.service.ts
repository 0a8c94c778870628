import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  cleanEmail,
  hasCsvExtension,
  isGenericEmail,
  isValidEmail,
  LIST_MESSAGES,
  SKIP_REASONS,
  type TListImport,
  ZImportMapping,
} from '@sendwell/contracts';
import { from as copyFrom } from 'pg-copy-streams';
import { z } from 'zod';
import type { TPlatform } from '../../platform/context';
import { HttpError, notFound, ValidationError } from '../../platform/errors';
import { defineJob } from '../../platform/queue';
import { publishToUser } from '../../platform/realtime';
import { CsvReadError, createCsvReportWriter, readCsvBatches, type TCsvReportWriter } from './csv-reader';
import * as repository from './lists.repository';
import { genericNames, mailgunOfList, providerError, requireList } from './lists.service';

/** Uploads are kept in the database in chunks of this size until the import has read them. */
const CHUNK_BYTES = 1024 * 1024;
/** A failure that is not the file's (the database went away) is tried again this often. */
const IMPORT_RETRIES = 2;
/** Imports adding more rows than this refresh the members table's planner statistics. */
const ANALYZE_AFTER_ROWS = 10_000;
/** How often a running import writes its progress and tells the page. */
const PROGRESS_EVERY_MS = 500;

type TMapping = z.output<typeof ZImportMapping>;

export const toImport = (row: repository.TImportRow): TListImport => ({
  ...row,
  created_at: row.created_at.toISOString(),
  finished_at: row.finished_at?.toISOString() ?? null,
});

export const findImport = async (platform: TPlatform, userId: number, importId: number) => {
  const row = await repository
    .importsQuery(platform.db, userId)
    .where('list_imports.id', '=', importId)
    .executeTakeFirst();
  if (!row) throw notFound('This import does not exist.');
  return toImport(row);
};

/** Imports still running, and those that ended in the last hour, newest first. */
export const listActiveImports = async (platform: TPlatform, userId: number) => {
  const rows = await repository
    .importsQuery(platform.db, userId)
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
 * Takes an uploaded file for a list (the `file` part, with a `mapping` JSON field before or
 * after it): stores the file in chunks, in the same transaction as the import row and its
 * job, and queues the import. Nothing is kept of an upload that did not arrive whole or
 * whose mapping is wrong.
 */
export const startImport = async (
  platform: TPlatform,
  userId: number,
  listId: number,
  parts: AsyncIterable<TUploadPart>,
) => {
  await requireList(platform.db, userId, listId);
  const importId = await platform.db.transaction().execute(async (trx) => {
    const { id } = await repository.insertImport(trx, {
      user_id: userId,
      list_id: listId,
      file_name: '',
      mapping: '{}',
    });
    let mappingText: string | null = null;
    let fileName: string | null = null;
    let seq = 0;
    let total = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      await repository.insertImportChunk(trx, id, 'upload', seq, Buffer.concat(pending, pendingBytes));
      seq += 1;
      pending = [];
      pendingBytes = 0;
    };
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
        pending.push(chunk);
        pendingBytes += chunk.length;
        total += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      if (part.file.truncated) throw new HttpError(413, LIST_MESSAGES.csvTooLarge, 'FILE_TOO_LARGE');
    }
    if (fileName === null || total === 0) throw new ValidationError({ file: [LIST_MESSAGES.uploadFirst] });
    let mapping: TMapping;
    try {
      mapping = ZImportMapping.parse(JSON.parse(mappingText ?? 'null'));
    } catch {
      throw new ValidationError({ mapping: [LIST_MESSAGES.selectEmail] });
    }
    await repository.updateImport(trx, id, {
      file_name: fileName.slice(0, 255),
      mapping: JSON.stringify(mapping),
      bytes_total: total,
    });
    await platform.queue.enqueue(importListJob, { importId: id }, { executor: trx });
    return id;
  });
  return findImport(platform, userId, importId);
};

/** The stored upload, chunk by chunk, as a stream the CSV reader takes. */
async function* storedFile(platform: TPlatform, importId: number, kind: 'upload' | 'report') {
  for (let seq = 0; ; seq += 1) {
    const chunk = await repository.findImportChunk(platform.db, importId, kind, seq);
    if (!chunk) return;
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
 * Reads the file, stages the good rows with COPY and merges them into the list in one
 * transaction: a file that breaks halfway leaves the list exactly as it was. Invalid rows
 * are skipped and written to a report; duplicates (in the file or on the list) are merged.
 */
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
    await publishToUser(platform.db, userId, 'ListImportProgressEvent', event).catch(() => {});
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
  try {
    await client.query('begin');
    isInTransaction = true;
    // The merge sorts the whole file by address once: in memory, not in temporary files.
    await client.query("set local work_mem = '128MB'");
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
    const copy = client.query(copyFrom('copy import_rows (line, email, fullname, fields) from stdin'));
    const staged = (async function* () {
      let isHeader = mapping.hasHeaders;
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
            continue;
          }
          counts.rows_read += 1;
          const cells = row.cells;
          const email = cleanEmail(cells[mapping.emailColumn] ?? '');
          if (!email) {
            await skip(row.line, SKIP_REASONS.missingEmail, cells);
            continue;
          }
          if (!isValidEmail(email)) {
            await skip(row.line, SKIP_REASONS.invalidEmail, cells);
            continue;
          }
          if (mapping.removeGeneric && isGenericEmail(email, generic)) {
            await skip(row.line, SKIP_REASONS.generic, cells);
            continue;
          }
          const fullname = mapping.nameColumn === null ? '' : (cells[mapping.nameColumn] ?? '').slice(0, 200);
          let fields = '{}';
          if (mapping.fields.length > 0) {
            const values: Record<string, string> = {};
            for (const field of mapping.fields) {
              const value = cells[field.column];
              // Empty cells are skipped for custom fields (spec §5).
              if (value) values[field.key] = value.slice(0, 1000);
            }
            fields = JSON.stringify(values);
          }
          text += `${row.line}\t${copyText(email)}\t${copyText(fullname)}\t${copyText(fields)}\n`;
        }
        if (text) yield Buffer.from(text);
        await progress();
      }
    })();
    await pipeline(staged, copy);

    stage = 'saving';
    await progress(true);
    const merged = await client.query(
      `with incoming as (
         select distinct on (lower(email)) email, fullname, fields
           from import_rows
          order by lower(email), line desc
       ), written as (
         insert into list_members as m (user_id, list_id, account_id, email, fullname, fields)
         select $1, $2, $3, email, fullname, fields from incoming
         on conflict (list_id, lower(email)) do update
            set fullname = case when excluded.fullname <> '' then excluded.fullname else m.fullname end,
                fields = m.fields || excluded.fields,
                updated_at = now()
         returning (xmax = 0) as inserted
       )
       select count(*) filter (where inserted)::int as added,
              count(*) filter (where not inserted)::int as updated,
              (select count(*)::int from import_rows) as staged
         from written`,
      [userId, listId, accountId],
    );
    const {
      added,
      updated,
      staged: stagedCount,
    } = merged.rows[0] as { added: number; updated: number; staged: number };
    counts.added = added;
    counts.updated = updated;
    counts.duplicates = stagedCount - added - updated;
    await client.query('delete from list_import_files where import_id = $1 and kind = $2', [importId, 'upload']);
    await client.query('commit');
    isInTransaction = false;
  } catch (error) {
    if (isInTransaction) await client.query('rollback').catch(() => {});
    client.release();
    await report?.end().catch(() => {});
    await rm(reportPath, { force: true });
    if (error instanceof CsvReadError || signal.aborted || isLastTry) {
      const message =
        error instanceof CsvReadError
          ? error.message
          : signal.aborted
            ? 'The import was stopped.'
            : `The import failed: ${(error as Error).message}`;
      await failImport(platform, importId, message, counts);
      await announce('failed', message);
      return;
    }
    throw error;
  }
  // A large merge changes the table's shape: fresh statistics keep the member pages on
  // their indexes instead of waiting for autovacuum.
  if (counts.added > ANALYZE_AFTER_ROWS) await client.query('analyze list_members').catch(() => {});
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
  await repository.updateImport(platform.db, importId, {
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
  counts.bytes_read = claimed.bytes_total;
  await announce('finished');
  await pushImportToProvider(platform, userId, listId, importId);
};

const failImport = (platform: TPlatform, importId: number, message: string, counts: TCounts) =>
  repository.updateImport(platform.db, importId, {
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
