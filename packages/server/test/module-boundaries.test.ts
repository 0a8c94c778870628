import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * DESIGN §6: a table belongs to one module, and only that module's code reads or writes
 * it; other modules call its service. This test reads the source: it fails when a module
 * imports another module's files other than its service (`*.service.ts`) or jobs
 * (`*.jobs.ts`, to enqueue them), or names another module's table in a query.
 *
 * `KNOWN` lists the crossings that predate the rule, each with why it is still there. The
 * list may only shrink: an entry that no longer occurs fails the test too, so whoever
 * removes a crossing removes its entry.
 */

const MODULES_DIR = path.resolve(import.meta.dirname, '../src/modules');

/** Which module owns each table. The platform's own tables are the platform's. */
const OWNER: Record<string, string> = {
  users: 'auth',
  sessions: 'auth',
  password_resets: 'auth',
  email_changes: 'auth',
  // The platform's own (http-security); only the system module's cleanup touches it.
  rate_limit_buckets: 'platform',
  captcha_solutions: 'registration',
  plans: 'plans',
  credit_entries: 'credits',
  credit_balances: 'credits',
  stripe_events: 'billing',
  notifications: 'notifications',
  notification_counters: 'notifications',
  sending_accounts: 'accounts',
  test_inbox_messages: 'test-inbox',
  mailing_lists: 'lists',
  list_members: 'lists',
  list_member_search: 'lists',
  list_imports: 'lists',
  list_import_files: 'lists',
  // Consent records and double opt-in confirmations of members (issue 48).
  member_consents: 'lists',
  // The hashes of addresses erased on request, read with the suppressions (issue 48 §4).
  erased_addresses: 'suppression',
  suppressions: 'suppression',
  // The soft bounces the temporary suppression rule counts.
  soft_bounces: 'suppression',
  sends: 'delivery',
  // The circuit breaker's groups of sends judged as one (a drip campaign's messages).
  breaker_groups: 'delivery',
  // An A/B subject test's decision; its sends are the engine's.
  ab_tests: 'ab-tests',
  send_recipients: 'delivery',
  send_links: 'delivery',
  account_daily_counts: 'delivery',
  account_cap_reservations: 'delivery',
  // The engine's record of what happened to each message; the intake adds to it through the
  // delivery service, the reports read it through the same.
  delivery_events: 'delivery',
  templates: 'send-email',
  media: 'media',
  media_files: 'media',
  // Per account and day, moved by a statement trigger on delivery_events; read by the dashboard.
  account_daily_stats: 'reports',
  provider_events: 'delivery-events',
  webhook_tokens: 'delivery-events',
  tickets: 'tickets',
  verification_jobs: 'verification',
  verification_items: 'verification',
  verified_addresses: 'verification',
  ticket_messages: 'tickets',
  announcements: 'announcements',
  audit_log: 'operator',
  spam_tests: 'spam-test',
  campaigns: 'campaigns',
  campaign_steps: 'campaigns',
  campaign_recipients: 'campaigns',
  campaign_sources: 'campaigns',
  campaign_source_rows: 'campaigns',
  campaign_messages: 'campaigns',
  verification_probe_status: 'verification',
  api_keys: 'api-keys',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  transactional_requests: 'send-email',
  // What the DNS resolver answered for names that must exist (R48), as verification and the pre-send check saw it.
  resolver_status: 'system',
  // A send waiting for its lists' verification (the verify-lists upsell).
  sends_after_verification: 'send-email',
};

/** Crossings that predate the rule: `module: what` → why it stays for now. */
const KNOWN: Record<string, string> = {
  'accounts: table users': 'reads the user email (Google test users, the From default); auth should offer it',
  'auth: table credit_balances': 'the signed-in user view joins the balance in one query',
  'auth: table plans': 'the signed-in user view joins the plan in one query',
  'billing: table users': 'Stripe customer and subscription ids are columns of users',
  'credits: table users': 'the credit log reads the user time zone for its day filter',
  'lists: table sending_accounts': 'the list tables join their account name and provider in one page query',
  'lists: table users': 'reads the user email for Mailgun list addresses',
  'plans: table users': 'a user plan is a column of users (set-plan writes it)',
};

/**
 * DESIGN §7: the module folders from the lowest to the highest. A module imports only
 * modules of a lower layer (never one of its own layer, never a higher one); a lower
 * module that needs a higher one's work offers a hook in its registration
 * (`modules/module.ts`) and the higher one registers. So there is no import cycle between
 * module folders. A new module takes its place here.
 */
const LAYERS: string[][] = [
  // Knows no other module: the hourly cleanup runs what others register; inbound routes
  // mail to the routes others register.
  ['system', 'inbound', 'plans', 'credits', 'notifications', 'announcements', 'contact', 'media'],
  ['auth'],
  ['tickets', 'billing', 'api-keys'],
  ['registration', 'test-inbox'],
  ['accounts'],
  ['lists'],
  ['suppression', 'verification'],
  // The delivery engine, then what stands on it: the intake of the world's word, the
  // reports that read it, the Send Email page that feeds it.
  ['delivery'],
  // An A/B subject test's decision over the engine's split sends; History and Send Email call it.
  ['ab-tests'],
  ['delivery-events', 'reports', 'send-email'],
  // Signup forms over lists, the engine (the confirmation email), the intake (an unsubscribe
  // from the preferences page) and registration's captcha.
  ['spam-test', 'campaigns', 'signup'],
  // The person's data goes through every module's registered part; it imports none.
  ['operator', 'deliverability', 'privacy'],
  // Webhooks out: told of events through the `eventSink` hook; it calls no other module.
  ['webhooks'],
];

const sourcesOf = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesOf(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });

/** Tables a piece of code names in Kysely calls or in SQL. */
const tablesNamed = (code: string): Set<string> => {
  const found = new Set<string>();
  const patterns = [
    /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*'([a-z_]+)/g,
    /\b(?:from|join|into|update|exists \(select 1 from)\s+([a-z_]+)\b/gi,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) {
      const table = match[1]!.toLowerCase();
      if (table in OWNER) found.add(table);
    }
  }
  return found;
};

const crossings = () => {
  const found = new Set<string>();
  for (const file of sourcesOf(MODULES_DIR)) {
    const relative = path.relative(MODULES_DIR, file);
    const module = relative.split(path.sep)[0]!;
    if (!fs.statSync(path.join(MODULES_DIR, module)).isDirectory()) continue;
    const code = fs.readFileSync(file, 'utf8');
    for (const match of code.matchAll(/from '\.\.\/([a-z-]+)\/([a-z.-]+)'/g)) {
      const [, other, target] = match;
      if (other === module || other === undefined || target === undefined) continue;
      if (target.endsWith('.service') || target.endsWith('.jobs')) continue;
      found.add(`${module}: import ${other}/${target}`);
    }
    for (const table of tablesNamed(code)) {
      const owner = OWNER[table];
      if (owner !== module) found.add(`${module}: table ${table}`);
    }
  }
  return found;
};

/** Module folder → the module folders it imports (any file, tests aside). */
const moduleImports = () => {
  const arrows = new Map<string, Set<string>>();
  for (const file of sourcesOf(MODULES_DIR)) {
    const module = path.relative(MODULES_DIR, file).split(path.sep)[0]!;
    if (!fs.statSync(path.join(MODULES_DIR, module)).isDirectory()) continue;
    const code = fs.readFileSync(file, 'utf8');
    for (const match of code.matchAll(/(?:from|import\()\s*'\.\.\/([a-z-]+)\//g)) {
      const other = match[1]!;
      if (other === module) continue;
      arrows.set(module, (arrows.get(module) ?? new Set()).add(other));
    }
  }
  return arrows;
};

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

describe('module boundaries (DESIGN §6)', () => {
  it('no module imports another module except its service or jobs, or names another module table', () => {
    const unknown = [...crossings()].filter((crossing) => !(crossing in KNOWN)).sort();
    expect(unknown).toEqual([]);
  });

  it('lists only crossings that still occur: a crossing removed takes its entry with it', () => {
    const current = crossings();
    const stale = Object.keys(KNOWN).filter((crossing) => !current.has(crossing));
    expect(stale).toEqual([]);
  });
});

describe('module layers (DESIGN §7)', () => {
  it('places every module folder in a layer', () => {
    const folders = fs
      .readdirSync(MODULES_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => layerOf(folder) === -1)).toEqual([]);
    expect(LAYERS.flat().filter((module) => !folders.includes(module))).toEqual([]);
  });

  it('has no import from a module into one of its own layer or a higher one', () => {
    const upward = [...moduleImports()].flatMap(([module, others]) =>
      [...others].filter((other) => layerOf(other) >= layerOf(module)).map((other) => `${module} -> ${other}`),
    );
    expect(upward).toEqual([]);
  });

  it('has no import cycle between module folders', () => {
    const arrows = moduleImports();
    const cycles: string[] = [];
    const visit = (module: string, trail: string[]) => {
      if (trail.includes(module)) {
        cycles.push([...trail.slice(trail.indexOf(module)), module].join(' -> '));
        return;
      }
      for (const other of arrows.get(module) ?? []) visit(other, [...trail, module]);
    };
    for (const module of arrows.keys()) visit(module, []);
    expect(cycles).toEqual([]);
  });
});

/**
 * DESIGN §8 (issue 44): an outcome is applied in one place. What a result means for a
 * recipient (its state and first-time columns, its send's figures, its delivery event) is
 * written by `delivery/outcomes.ts`, and by the claim code (`delivery/claims.ts`), which
 * ends what an abandoned claim held; every intake hands its events to `applyOutcomes`.
 */
describe('outcomes in one place (DESIGN §8)', () => {
  const SOURCE_DIR = path.resolve(import.meta.dirname, '../src');
  const filesWhere = (pattern: RegExp) =>
    sourcesOf(SOURCE_DIR)
      .filter((file) => pattern.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(SOURCE_DIR, file).split(path.sep).join('/'))
      .sort();

  it("writes a recipient's row only in delivery/outcomes.ts and the claim code", () => {
    expect(filesWhere(/\bupdate\s+send_recipients\b|updateTable\(\s*'send_recipients'/)).toEqual([
      'modules/delivery/claims.ts',
      'modules/delivery/outcomes.ts',
    ]);
  });

  it("moves a send's figures only there", () => {
    const figures = '(?:sent|failed|unknown|delivered|opened|clicked|complained|unsubscribed)_count';
    expect(filesWhere(new RegExp(`update\\s+sends\\b[^\`]*\\b${figures}\\s*=`))).toEqual([
      'modules/delivery/claims.ts',
      'modules/delivery/outcomes.ts',
    ]);
  });

  it('records delivery events only there, through the one record (event-record.ts)', () => {
    expect(filesWhere(/insert\s+into\s+delivery_events\b|insertInto\(\s*'delivery_events'/)).toEqual([
      'modules/delivery/claims.ts',
      'modules/delivery/event-record.ts',
    ]);
    expect(filesWhere(/\b(?:insertDeliveryEvents|eventsOfSettled)\b/)).toEqual([
      'modules/delivery/event-record.ts',
      'modules/delivery/outcomes.ts',
    ]);
  });
});
