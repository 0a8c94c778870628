import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { LIST_MESSAGES, SKIP_REASONS } from '@sendwell/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedUser, signedInWithSmtp, startTestApp, type TAgent, type TTestApp } from '../../../test/app';
import { importListJob } from './imports.service';

let t: TTestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ LIST_IMPORT_MAX_MB: '4', LOGIN_LIMIT_PER_IP: '1000' });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t?.close();
});

const signedInWithList = async () => {
  const { list, ...signedIn } = await signedInWithSmtp(t, { list: true });
  return { ...signedIn, list: list! };
};

const csvUpload = async (agent: TAgent, listId: number, fileName: string, content: string, mapping: object) => {
  const form = new FormData();
  form.set('mapping', JSON.stringify(mapping));
  form.set('file', new Blob([content]), fileName);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return agent.post(`/api/mailing-lists/${listId}/imports`, Buffer.from(await request.arrayBuffer()), {
    headers: { 'content-type': request.headers.get('content-type')! },
  });
};

/** Runs a queued import the way a worker does (the handler, with its job's payload). */
const runImport = async (importId: number) => {
  await importListJob.handler({ importId }, t.platform, {
    jobId: 'test',
    retryCount: 0,
    signal: new AbortController().signal,
  });
  return t.platform.db.selectFrom('list_imports').selectAll().where('id', '=', importId).executeTakeFirstOrThrow();
};

const membersOf = async (listId: number) =>
  (await t.platform.db.selectFrom('list_members').select(['email', 'fullname']).where('list_id', '=', listId).execute())
    .map((member) => [member.email, member.fullname])
    .sort(([a], [b]) => a!.toLowerCase().localeCompare(b!.toLowerCase()));

const importsOf = (listId: number) =>
  t.platform.db.selectFrom('list_imports').select(['id', 'status']).where('list_id', '=', listId).execute();

describe('files people actually have', () => {
  it('imports an Outlook-style export with IDN domains, display names, a mailto: link and a UTF-8 mailbox', async () => {
    const { agent, list } = await signedInWithList();
    const outlook = [
      'First Name,Last Name,E-mail Address,E-mail Display Name',
      'Karl,Kunde,kunde@bücher.example,Karl Kunde',
      'Karl,Again,KUNDE@xn--bcher-kva.example,Karl Kunde',
      'Ivan,Petrov,info@пример.рф,Ivan',
      'Shop,,shop@store.xn--p1ai,Shop',
      'Ann,Lee,Ann Lee <ann@example.com>,Ann Lee',
      'Bob,Lee,"""Lee, Bob"" <bob@example.com>",Bob Lee',
      'Carl,Doe,<carl@example.com>,Carl',
      'Link,Person,mailto:user@example.com,Link',
      'Pochta,Person,почта@пример.рф,Pochta',
    ].join('\r\n');
    const started = await csvUpload(agent, list.id, 'outlook.csv', outlook, {
      hasHeaders: true,
      emailColumn: 2,
      nameColumn: 0,
    });
    expect(started.statusCode, started.body).toBe(200);
    const done = await runImport(started.json().data.id);
    expect(done).toMatchObject({ status: 'finished', rows_read: 9, added: 6, updated: 0, duplicates: 1, skipped: 2 });
    expect(done.skipped_reasons).toEqual({ [SKIP_REASONS.mailto]: 1, [SKIP_REASONS.nonAsciiLocalPart]: 1 });
    // One canonical form: lower-case A-label domains; the U-label and A-label rows are one member.
    expect(await membersOf(list.id)).toEqual([
      ['ann@example.com', 'Ann'],
      ['bob@example.com', 'Bob'],
      ['carl@example.com', 'Carl'],
      ['info@xn--e1afmkfd.xn--p1ai', 'Ivan'],
      ['KUNDE@xn--bcher-kva.example', 'Karl'],
      ['shop@store.xn--p1ai', 'Shop'],
    ]);
    const report = await agent.get(`/api/mailing-lists/imports/${done.id}/skipped`);
    expect(report.body).toContain('mailto:user@example.com');
    expect(report.body).toContain(SKIP_REASONS.mailto);
    expect(report.body).toContain(SKIP_REASONS.nonAsciiLocalPart);
  });

  it('joins First Name and Last Name into the Name, as a Mailchimp export maps them (issue 29 item 4)', async () => {
    const { agent, list } = await signedInWithList();
    const mailchimp = [
      'Email Address,First Name,Last Name,MEMBER_RATING',
      'ann@example.com,Ann,Lee,2',
      'bob@example.com,Bob,,1',
      'carl@example.com,, Doe ,3',
    ].join('\n');
    const started = await csvUpload(agent, list.id, 'members_export.csv', mailchimp, {
      hasHeaders: true,
      emailColumn: 0,
      nameColumns: [1, 2],
      fields: [{ column: 3, key: 'member_rating' }],
    });
    expect(started.statusCode, started.body).toBe(200);
    expect(await runImport(started.json().data.id)).toMatchObject({ status: 'finished', added: 3 });
    expect(await membersOf(list.id)).toEqual([
      ['ann@example.com', 'Ann Lee'],
      ['bob@example.com', 'Bob'],
      ['carl@example.com', 'Doe'],
    ]);
    // The name's parts are kept as {{first_name}} and {{last_name}} too (issue 46 §5).
    const fields = await t.platform.db
      .selectFrom('list_members')
      .select(['email', 'fields'])
      .where('list_id', '=', list.id)
      .orderBy('email')
      .execute();
    expect(fields.map((row) => [row.email, row.fields])).toEqual([
      ['ann@example.com', { first_name: 'Ann', last_name: 'Lee', member_rating: '2' }],
      ['bob@example.com', { first_name: 'Bob', member_rating: '1' }],
      ['carl@example.com', { last_name: 'Doe', member_rating: '3' }],
    ]);
    const overlapping = await csvUpload(agent, list.id, 'members_export.csv', mailchimp, {
      hasHeaders: true,
      emailColumn: 0,
      nameColumns: [0, 1],
    });
    expect(overlapping.statusCode).toBe(422);
    expect(JSON.stringify(overlapping.json())).toContain('Each column can be mapped once.');
  });

  it('applies the same address rules to rows the browser posts and to a member added by hand', async () => {
    const { agent, list, accountId } = await signedInWithList();
    const posted = await agent.post('/api/mailing-lists/ajax/post-csv', {
      account: accountId,
      address: list.address,
      data: [
        { email: '"Lee, Ann" <ann@bücher.example>', name: 'Ann' },
        { email: 'mailto:bob@example.com', name: 'Bob' },
      ],
    });
    expect(posted.json()).toMatchObject({ status: true, counts: { added: 1, skipped: 1 } });
    const added = await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'kim@пример.рф' });
    expect(added.statusCode, added.body).toBe(200);
    expect(await membersOf(list.id)).toEqual([
      ['ann@xn--bcher-kva.example', 'Ann'],
      ['kim@xn--e1afmkfd.xn--p1ai', ''],
    ]);
  });
});

describe('large files', () => {
  it('counts an address repeated in batches merged apart once, and keeps its last row', async () => {
    const { agent, list } = await signedInWithList();
    await agent.post('/api/mailing-lists/add-member', { listId: list.id, email: 'old@example.com', fullname: 'Old' });
    const rows = Array.from({ length: 60_000 }, (_, index) => `p${index}@example.com,P${index},`);
    rows[10] = 'ann@example.com,Ann First,a';
    rows[20] = 'old@example.com,,b';
    rows[55_000] = 'ANN@example.com,Ann Last,c';
    rows[56_000] = 'old@example.com,Old Again,';
    const started = await csvUpload(agent, list.id, 'big.csv', `Email,Name,Tag\n${rows.join('\n')}\n`, {
      hasHeaders: true,
      emailColumn: 0,
      nameColumn: 1,
      fields: [{ column: 2, key: 'tag' }],
    });
    expect(started.statusCode, started.body).toBe(200);
    const done = await runImport(started.json().data.id);
    expect(done).toMatchObject({ status: 'finished', rows_read: 60_000, added: 59_997, updated: 1, duplicates: 2 });
    const members = await t.platform.db
      .selectFrom('list_members')
      .select(['email', 'fullname', 'fields'])
      .where('list_id', '=', list.id)
      .where(sql<boolean>`lower(email) in ('ann@example.com', 'old@example.com')`)
      .orderBy('email')
      .execute();
    expect(members).toEqual([
      { email: 'ANN@example.com', fullname: 'Ann Last', fields: { tag: 'c' } },
      { email: 'old@example.com', fullname: 'Old Again', fields: { tag: 'b' } },
    ]);
    const info = await t.platform.db
      .selectFrom('mailing_lists')
      .select('members_count')
      .where('id', '=', list.id)
      .executeTakeFirstOrThrow();
    expect(info.members_count).toBe(59_998);
  });
});

describe("the spec's first-row rule on the server", () => {
  const headerless = 'john.smith.example.com,John,Smith\nann@example.com,Ann,Lee\nbob@example.com,Bob,Lee\n';

  it('refuses a file whose first row has no valid email, saying the header row must be removed', async () => {
    const { agent, list } = await signedInWithList();
    const response = await csvUpload(agent, list.id, 'contacts.csv', headerless, {
      hasHeaders: false,
      emailColumn: 0,
      nameColumn: 1,
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.file).toEqual([LIST_MESSAGES.headerRow]);
    const withHeader = await csvUpload(agent, list.id, 'contacts.csv', `Email,Name\n${headerless}`, {
      hasHeaders: false,
      emailColumn: 0,
    });
    expect(withHeader.json().errors.file).toEqual([LIST_MESSAGES.headerRow]);
    expect(await importsOf(list.id)).toEqual([]);
  });

  it('refuses to drop a mistyped first address as if it were a header row', async () => {
    const { agent, list } = await signedInWithList();
    const response = await csvUpload(agent, list.id, 'contacts.csv', headerless, {
      hasHeaders: true,
      emailColumn: 0,
      fields: [
        { column: 1, key: 'john' },
        { column: 2, key: 'smith' },
      ],
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().errors.file).toEqual([LIST_MESSAGES.headerLooksLikeAddress]);
    expect(await importsOf(list.id)).toEqual([]);
  });
});

// --- R25: slow clients and the pool ---

/** Database sessions of the app's database in a state, besides the one asking. */
const sessionsIn = async (state: string) => {
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from pg_stat_activity
     where datname = current_database() and pid <> pg_backend_pid() and state = ${state}`.execute(t.platform.db);
  return rows[0]!.count;
};

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A multipart upload on a raw socket whose body comes as slowly as the test sends it. */
const openUpload = async (agent: TAgent, listId: number, firstBytes: string | Buffer, declaredLength: number) => {
  const token = (await agent.get('/api/csrf')).json().token as string;
  const cookie = [...agent.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const boundary = 'sendwell-slow-upload';
  const preamble =
    `--${boundary}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n` +
    `${JSON.stringify({ hasHeaders: true, emailColumn: 0 })}\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\n` +
    'Content-Type: text/csv\r\n\r\n';
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  let answer = '';
  socket.on('data', (data) => {
    answer += data.toString();
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(
    `POST /api/mailing-lists/${listId}/imports HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n` +
      `X-CSRF-Token: ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
      `Content-Length: ${declaredLength}\r\n\r\n${preamble}`,
  );
  socket.write(firstBytes);
  return { socket, answer: () => answer };
};

/** A kept-alive connection that asked once and then says nothing. */
const openIdleKeepAlive = async () => {
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const answered = new Promise((resolve) => socket.once('data', resolve));
  socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  await answered;
  return socket;
};

/** Sign-in and the lists table over real HTTP, as another person's browser would. */
const signInAndReadTable = async (email: string, password: string) => {
  const base = `http://127.0.0.1:${port}`;
  const csrf = await fetch(`${base}/api/csrf`);
  const csrfCookie = csrf.headers.getSetCookie().map((line) => line.split(';')[0]);
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: csrfCookie.join('; '),
      'x-csrf-token': ((await csrf.json()) as { token: string }).token,
    },
    body: JSON.stringify({ email, password }),
  });
  const cookie = [...csrfCookie, ...login.headers.getSetCookie().map((line) => line.split(';')[0])].join('; ');
  const table = await fetch(`${base}/api/mailing-lists?per_page=20`, { headers: { cookie } });
  return { login: login.status, table: table.status };
};

describe('slow uploads (R25)', () => {
  it('holds no database connection while 20 uploads trickle a byte a second beside 20 idle keep-alive sockets', async () => {
    const { agent, list } = await signedInWithList();
    const other = await seedUser(t.platform);
    const uploads = await Promise.all(
      Array.from({ length: 20 }, () => openUpload(agent, list.id, 'email\nann@example.com\n', 100_000)),
    );
    const idle = await Promise.all(Array.from({ length: 20 }, () => openIdleKeepAlive()));
    const poolSize = t.config.dbPoolSize;
    const checkedOut: number[] = [];
    const inTransaction: number[] = [];
    try {
      for (let second = 0; second < 4; second += 1) {
        for (const upload of uploads) upload.socket.write('b');
        await sleep(1_000);
        checkedOut.push(t.platform.pool.totalCount - t.platform.pool.idleCount);
        inTransaction.push(await sessionsIn('idle in transaction'));
        const answered = await within(signInAndReadTable(other.email, other.password), 10_000, 'sign-in and table');
        expect(answered).toEqual({ login: 200, table: 200 });
      }
      // Nothing waits on the pool and nothing sits in a transaction for a slow client.
      expect(inTransaction).toEqual([0, 0, 0, 0]);
      expect(Math.max(...checkedOut)).toBeLessThanOrEqual(1);
      expect(t.platform.pool.totalCount).toBeLessThanOrEqual(poolSize);
      expect(t.platform.pool.waitingCount).toBe(0);
      // No upload has produced a row anyone could see or a job could read.
      expect(await importsOf(list.id)).toEqual([]);
      expect(uploads.every((upload) => upload.answer() === '')).toBe(true);
    } finally {
      for (const upload of uploads) upload.socket.destroy();
      for (const socket of idle) socket.destroy();
    }
  });

  it('stores a large upload chunk by chunk under a row no page shows, and drops it when the client goes away', async () => {
    const { agent, list } = await signedInWithList();
    const rows = Array.from({ length: 60_000 }, (_, index) => `person${index}@example.com`).join('\n');
    const upload = await openUpload(agent, list.id, `email\n${rows}\n`, 3 * 1024 * 1024);
    // The first 1 MB chunk is stored in its own statement, under an 'uploading' row.
    await expect.poll(async () => (await importsOf(list.id)).map((row) => row.status)).toEqual(['uploading']);
    const [staged] = await importsOf(list.id);
    expect(await sessionsIn('idle in transaction')).toBe(0);
    expect((await agent.get(`/api/mailing-lists/imports/${staged!.id}`)).statusCode).toBe(404);
    expect((await agent.get('/api/mailing-lists/imports')).json().data).toEqual([]);
    upload.socket.destroy();
    await expect.poll(async () => (await importsOf(list.id)).length).toBe(0);
    const chunks = await t.platform.db
      .selectFrom('list_import_files')
      .select('seq')
      .where('import_id', '=', staged!.id)
      .execute();
    expect(chunks).toEqual([]);
  });

  it('deletes uploads a dead process left behind when the next upload starts', async () => {
    const { agent, list, user } = await signedInWithList();
    const { id } = await t.platform.db
      .insertInto('list_imports')
      .values({
        user_id: user.id,
        list_id: list.id,
        file_name: 'left.csv',
        mapping: '{}',
        status: 'uploading',
        updated_at: new Date(Date.now() - 3 * 3600_000),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const started = await csvUpload(agent, list.id, 'next.csv', 'email\nann@example.com\n', {
      hasHeaders: true,
      emailColumn: 0,
    });
    expect(started.statusCode, started.body).toBe(200);
    expect((await importsOf(list.id)).map((row) => row.id)).toEqual([started.json().data.id]);
    expect(id).not.toBe(started.json().data.id);
  });
});

describe('the import’s verification offer', () => {
  it('tells the user in a notification when an import finishes or fails, once each (issue 29 item 5)', async () => {
    const { user, agent, accountId, list } = await signedInWithList();
    const notes = () =>
      t.platform.db
        .selectFrom('notifications')
        .select(['title', 'body', 'link'])
        .where('user_id', '=', user.id)
        .orderBy('id')
        .execute();
    const good = await csvUpload(
      agent,
      list.id,
      'people.csv',
      'email\nann@example.com\nbob@example.com\nnot-an-email\n',
      {
        hasHeaders: true,
        emailColumn: 0,
      },
    );
    const goodId = good.json().data.id as number;
    expect(await runImport(goodId)).toMatchObject({ status: 'finished', added: 2 });
    // The job again (a retry after the commit): the import is done, nobody is told twice.
    await runImport(goodId);
    expect(await notes()).toEqual([
      {
        title: 'Your import into “News” finished',
        body: '2 added, 0 updated, 1 skipped.',
        link: `/mailing-lists/detail/${accountId}/${list.id}`,
      },
    ]);

    const rows = Array.from({ length: 10 }, (_, index) => `p${index}@example.com`).join('\n');
    const broken = await csvUpload(
      agent,
      list.id,
      'broken.csv',
      `email\n${rows}\n"unclosed,${'x'.repeat(70 * 1024)}\n`,
      {
        hasHeaders: true,
        emailColumn: 0,
      },
    );
    expect(await runImport(broken.json().data.id)).toMatchObject({ status: 'failed' });
    const [, failed] = await notes();
    expect(failed).toMatchObject({
      title: 'Your import into “News” failed',
      body: expect.stringMatching(/Nothing on the list was changed\.$/),
      link: `/mailing-lists/detail/${accountId}/${list.id}`,
    });
    // Queued for delivery to the user's open tabs, each once.
    const jobs = await sql<{ count: number }>`
      select count(*)::int as count from pgboss.job where name = 'notifications.deliver'
         and data->>'notificationId' in (select id::text from notifications where user_id = ${user.id})`.execute(
      t.platform.db,
    );
    expect(jobs.rows[0]?.count).toBe(2);
  });

  it('verifies the list once the import is in, charging one credit per address; without credits the import stands and the user is told', async () => {
    const { user, agent, list } = await signedInWithList();
    const usable = async () => {
      const { credit } = (await agent.get('/api/user-information')).json().data;
      return credit.totalCredit - credit.usedCredit;
    };
    const before = await usable();
    const started = await csvUpload(agent, list.id, 'people.csv', 'email\nann@example.com\nbob@example.com\n', {
      hasHeaders: true,
      emailColumn: 0,
      verify: true,
    });
    expect(started.statusCode, started.body).toBe(200);
    expect(await runImport(started.json().data.id)).toMatchObject({ status: 'finished', added: 2 });
    const listRow = await t.platform.db
      .selectFrom('mailing_lists')
      .select('verify_status')
      .where('id', '=', list.id)
      .executeTakeFirstOrThrow();
    expect(listRow.verify_status).toBe('processing');
    const jobs = await t.platform.db
      .selectFrom('verification_jobs')
      .select(['list_id', 'status', 'total', 'credits_charged'])
      .where('user_id', '=', user.id)
      .execute();
    expect(jobs).toEqual([{ list_id: list.id, status: 'queued', total: 2, credits_charged: 2 }]);
    expect(await usable()).toBe(before - 2);

    // Spend what is left: the next import asks for verification it cannot pay for.
    await t.platform.db.updateTable('credit_balances').set({ balance: 0 }).where('user_id', '=', user.id).execute();
    const small = await agent.post('/api/mailing-lists/ajax/post-csv', {
      data: [{ email: 'carl@example.com' }],
      account: (
        await t.platform.db
          .selectFrom('mailing_lists')
          .select('account_id')
          .where('id', '=', list.id)
          .executeTakeFirstOrThrow()
      ).account_id,
      address: list.address,
      verify: true,
    });
    expect(small.json()).toMatchObject({ status: true, counts: { added: 1 } });
    expect(small.json().message).toMatch(/imported, but not verified: To complete this process; please buy credits\./);
    const notes = await t.platform.db
      .selectFrom('notifications')
      .select(['title', 'body'])
      .where('user_id', '=', user.id)
      .execute();
    expect(notes).toContainEqual(
      expect.objectContaining({
        title: 'Your imported list was not verified',
        body: expect.stringMatching(/buy credits/),
      }),
    );
  });
});
