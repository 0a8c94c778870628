import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type TCreditBalance, usableCredit } from '@sendwell/contracts';
import { pino } from 'pino';
import { findUserByEmail, updatePasswordHash } from './modules/auth/auth.repository';
import { createUser, setRole } from './modules/auth/auth.service';
import { changeCredits, removeCredits } from './modules/credits/credits.service';
import { notifyUser } from './modules/notifications/notifications.service';
import { listUserAccounts, setAccountDailyCap } from './modules/operator/operator.service';
import { findPlan, insertPlan, listPlans, setUserPlan, updatePlan } from './modules/plans/plans.repository';
import { backupTo, restoreFrom } from './platform/backup';
import { openPlatform } from './platform/bootstrap';
import { loadConfig, type TConfig } from './platform/config';
import type { TPlatform } from './platform/context';
import type { Executor } from './platform/db';
import { hashPassword } from './platform/passwords';

/**
 * Operator tasks from the command line: `npm run admin -- <command> …`. It joins the
 * running embedded PostgreSQL (or starts it, or uses DATABASE_URL), never the web app.
 */
type TFlags = Record<string, string | undefined>;

type TCommand = {
  usage: string;
  run: (platform: TPlatform, positionals: string[], flags: TFlags) => Promise<void>;
};

/** A command that opens the database itself (a backup reads it as it is; a restore fills an empty one). */
type TDatabaseCommand = {
  usage: string;
  runOnDatabase: (config: TConfig, positionals: string[]) => Promise<void>;
};

const figure = (count: number) => count.toLocaleString('en-US');

const databaseCommands: Record<string, TDatabaseCommand> = {
  backup: {
    usage:
      'backup FILE   (a consistent copy of the database, and secret.key when it is a file, into FILE; works beside a running server)',
    runOnDatabase: async (config, [file]) => {
      if (!file) throw new Error('Give the file to write the backup to.');
      if (fs.existsSync(file)) throw new Error(`${file} exists already: give a new file.`);
      const manifest = await backupTo(config, path.resolve(file));
      const rows = manifest.tables.reduce((total, table) => total + table.rows, 0);
      console.log(`Backed up ${manifest.tables.length} tables, ${figure(rows)} rows, to ${file}.`);
      console.log(
        manifest.secret === 'file'
          ? 'The master secret (secret.key) is in the backup: keep the file as safe as the secret itself.'
          : 'SECRET_KEY is set in the environment, so it is not in the backup: keep it with the backup, or the stored credentials cannot be read.',
      );
    },
  },
  restore: {
    usage: 'restore FILE   (into an empty database: a new DATA_DIR, or an empty DATABASE_URL; stop Sendwell first)',
    runOnDatabase: async (config, [file]) => {
      if (!file || !fs.existsSync(file)) throw new Error('Give the backup file to restore.');
      const { manifest, upgraded } = await restoreFrom(config, path.resolve(file));
      const rows = manifest.tables.reduce((total, table) => total + table.rows, 0);
      console.log(
        `Restored ${manifest.tables.length} tables, ${figure(rows)} rows, from a backup of ${manifest.createdAt}.`,
      );
      if (upgraded.length > 0) console.log(`Then upgraded it: ${upgraded.length} migrations of this version ran.`);
    },
  },
};

const findUserId = async (platform: TPlatform, email: string) => {
  const user = await findUserByEmail(platform.db, email);
  if (!user) throw new Error(`No user with the email ${email}.`);
  return user.id;
};

const wholeNumber = (value: string | undefined, what: string, { min = 0 } = {}) => {
  const number = Number(value);
  if (value === undefined || !Number.isInteger(number) || number < min) {
    throw new Error(`${what} must be a whole number${min > 0 ? ` of at least ${min}` : ''}.`);
  }
  return number;
};

const text = (flags: TFlags, name: string) => flags[name];

/** A command that writes one credit entry for EMAIL (QUANTITY, --reference) and says the balance after it. */
const creditCommand = (
  usage: string,
  write: (trx: Executor, entry: { userId: number; amount: number; reference: string }) => Promise<TCreditBalance>,
  said: (email: string, amount: number) => string,
): TCommand => ({
  usage,
  run: async (platform, [email = '', quantity], flags) => {
    const userId = await findUserId(platform, email);
    const amount = wholeNumber(quantity, 'QUANTITY', { min: 1 });
    const reference = text(flags, 'reference') ?? 'operator';
    const balance = await platform.db.transaction().execute((trx) => write(trx, { userId, amount, reference }));
    console.log(`${said(email, amount)}; balance ${usableCredit(balance)} usable of ${balance.totalCredit}.`);
  },
});

/** Plan fields from flags, for create-plan and edit-plan; only the flags given. */
const planChanges = (flags: TFlags) => ({
  ...(text(flags, 'name') ? { name: text(flags, 'name')! } : {}),
  ...(text(flags, 'plan-name') ? { plan_name: text(flags, 'plan-name')! } : {}),
  ...(text(flags, 'price') !== undefined
    ? { price_cents: Math.round(Number(text(flags, 'price')) * 100), is_free: Number(text(flags, 'price')) === 0 }
    : {}),
  ...(text(flags, 'monthly-credits') !== undefined
    ? { monthly_credits: wholeNumber(text(flags, 'monthly-credits'), '--monthly-credits') }
    : {}),
  ...(text(flags, 'trial-credits') !== undefined
    ? { trial_credits: wholeNumber(text(flags, 'trial-credits'), '--trial-credits') }
    : {}),
  ...(text(flags, 'scheduling') !== undefined ? { allows_scheduling: text(flags, 'scheduling') === 'yes' } : {}),
  ...(text(flags, 'accounts') !== undefined ? { allows_accounts: text(flags, 'accounts') === 'yes' } : {}),
  ...(text(flags, 'stripe-price') !== undefined ? { stripe_price_id: text(flags, 'stripe-price') || null } : {}),
});

const PLAN_FLAGS =
  '[--name NAME] [--plan-name SLUG] [--price DOLLARS] [--monthly-credits N] [--trial-credits N] [--scheduling yes|no] [--accounts yes|no] [--stripe-price PRICE_ID]';

const commands: Record<string, TCommand> = {
  'create-user': {
    usage:
      'create-user EMAIL [--name NAME] [--password PASSWORD] [--plan PLAN_ID]   (password: flag, SENDWELL_PASSWORD, or generated)',
    run: async (platform, [email], flags) => {
      if (!email) throw new Error('Give the new user’s email.');
      const generated = !flags.password && !process.env.SENDWELL_PASSWORD;
      const password = flags.password ?? process.env.SENDWELL_PASSWORD ?? randomBytes(12).toString('base64url');
      if (password.trim().length < 6) throw new Error('The password must be at least 6 characters.');
      const user = await createUser(platform, {
        email,
        name: flags.name ?? email.split('@')[0]!,
        password: password.trim(),
        ...(flags.plan ? { planId: Number(flags.plan) } : {}),
      });
      console.log(`Created user ${user.id} <${user.email}>.`);
      if (generated) console.log(`Password: ${password}`);
    },
  },
  'set-password': {
    usage: 'set-password EMAIL --password PASSWORD',
    run: async (platform, [email], flags) => {
      const password = (flags.password ?? process.env.SENDWELL_PASSWORD ?? '').trim();
      if (!email || password.length < 6) throw new Error('Give an email and a --password of at least 6 characters.');
      const userId = await findUserId(platform, email);
      await updatePasswordHash(platform.db, userId, await hashPassword(password));
      console.log(`Password changed for ${email}.`);
    },
  },
  'list-users': {
    usage: 'list-users',
    run: async (platform) => {
      const users = await platform.db
        .selectFrom('users')
        .innerJoin('plans', 'plans.id', 'users.plan_id')
        .select(['users.id', 'users.email', 'users.name', 'plans.name as plan', 'users.created_at'])
        .orderBy('users.id')
        .execute();
      if (users.length === 0) console.log('No users yet. Create one with: npm run admin -- create-user EMAIL');
      for (const user of users) {
        console.log(`${user.id}\t${user.email}\t${user.name}\t${user.plan}\t${user.created_at.toISOString()}`);
      }
    },
  },
  'grant-credits': creditCommand(
    'grant-credits EMAIL QUANTITY [--reference TEXT]   (a one-time-credit entry)',
    (trx, { userId, amount, reference }) =>
      changeCredits(trx, { userId, type: 'one-time-credit', quantity: amount, reference }),
    (email, amount) => `Granted ${amount} credits to ${email}`,
  ),
  'remove-credits': creditCommand(
    'remove-credits EMAIL QUANTITY [--reference TEXT]   (a mon-balance-remove entry; stops at zero)',
    (trx, { userId, amount, reference }) =>
      removeCredits(trx, { userId, type: 'mon-balance-remove', amount, reference }),
    (email) => `Removed credits from ${email}`,
  ),
  'list-plans': {
    usage: 'list-plans',
    run: async (platform) => {
      console.log('id\tname\tplan_name\tprice\tmonthly\ttrial\tscheduling\taccounts');
      for (const plan of await listPlans(platform.db)) {
        console.log(
          [
            plan.id,
            plan.name,
            plan.plan_name,
            (plan.price_cents / 100).toFixed(2),
            plan.monthly_credits,
            plan.trial_credits,
            plan.allows_scheduling ? 'yes' : 'no',
            plan.allows_accounts ? 'yes' : 'no',
          ].join('\t'),
        );
      }
    },
  },
  'create-plan': {
    usage: `create-plan --name NAME --plan-name SLUG --price DOLLARS ${PLAN_FLAGS.replace('[--name NAME] [--plan-name SLUG] [--price DOLLARS] ', '')}`,
    run: async (platform, _positionals, flags) => {
      const changes = planChanges(flags);
      if (!changes.name || !changes.plan_name || changes.price_cents === undefined) {
        throw new Error('Give at least --name, --plan-name and --price.');
      }
      const plan = await insertPlan(platform.db, { ...changes, name: changes.name, plan_name: changes.plan_name });
      console.log(`Created plan ${plan.id} (${plan.name}).`);
    },
  },
  'edit-plan': {
    usage: `edit-plan PLAN_ID ${PLAN_FLAGS}`,
    run: async (platform, [id], flags) => {
      const changes = planChanges(flags);
      if (Object.keys(changes).length === 0) throw new Error(`Say what to change: ${PLAN_FLAGS}`);
      const plan = await updatePlan(platform.db, wholeNumber(id, 'PLAN_ID', { min: 1 }), changes);
      if (!plan) throw new Error(`No plan with id ${id}.`);
      console.log(`Updated plan ${plan.id} (${plan.name}).`);
    },
  },
  'set-plan': {
    usage: 'set-plan EMAIL PLAN_ID   (moves a user to a plan; runs paid plans without Stripe)',
    run: async (platform, [email, planId]) => {
      const userId = await findUserId(platform, email ?? '');
      const plan = await findPlan(platform.db, wholeNumber(planId, 'PLAN_ID', { min: 1 }));
      if (!plan) throw new Error(`No plan with id ${planId}. See: npm run admin -- list-plans`);
      await setUserPlan(platform.db, userId, plan.id);
      console.log(`${email} is now on ${plan.name}.`);
    },
  },
  'grant-operator': {
    usage: 'grant-operator EMAIL   (the user reaches the operator area in the web app)',
    run: async (platform, [email]) => {
      const userId = await findUserId(platform, email ?? '');
      await setRole(platform.db, userId, 'operator');
      console.log(`${email} is now an operator.`);
    },
  },
  'revoke-operator': {
    usage: 'revoke-operator EMAIL',
    run: async (platform, [email]) => {
      const userId = await findUserId(platform, email ?? '');
      await setRole(platform.db, userId, 'user');
      console.log(`${email} is no longer an operator.`);
    },
  },
  'list-accounts': {
    usage: 'list-accounts EMAIL   (the user’s sending accounts and their daily caps)',
    run: async (platform, [email]) => {
      const userId = await findUserId(platform, email ?? '');
      const accounts = await listUserAccounts(platform, userId);
      if (accounts.length === 0) console.log(`${email} has no sending account.`);
      console.log('id\tname\tkind\tdaily cap\tsent in 24 hours');
      for (const account of accounts) {
        const cap =
          account.daily_cap === null
            ? 'not capped'
            : `${account.daily_cap} (${account.operator_mail_per_day === null ? 'the user’s setting' : 'set by an operator'})`;
        console.log([account.id, account.name, account.driver ?? account.provider, cap, account.sent_today].join('\t'));
      }
    },
  },
  'set-daily-cap': {
    usage:
      'set-daily-cap ACCOUNT_ID N|default --reason TEXT   (an SMTP or Gmail account’s emails a day, past the form’s 1,000; default: the user’s own setting again; audited)',
    run: async (platform, [id, cap], flags) => {
      const reason = (flags.reason ?? '').trim();
      if (reason.length < 3)
        throw new Error('Say why with --reason (at least 3 characters): it goes in the audit log.');
      const dailyCap = cap === 'default' ? null : wholeNumber(cap, 'N', { min: 1 });
      const account = await setAccountDailyCap(
        platform,
        // The audit log names whoever ran the command on the server.
        { id: null, email: `admin CLI (${os.userInfo().username}@${os.hostname()})` },
        wholeNumber(id, 'ACCOUNT_ID', { min: 1 }),
        { dailyCap, reason },
      );
      console.log(
        `Account ${account.id} (${account.name}) may send ${account.daily_cap} emails a day${dailyCap === null ? ', its user’s own setting' : ''}.`,
      );
    },
  },
  notify: {
    usage: 'notify EMAIL TITLE [--body TEXT] [--link URL]   (delivered live by a worker)',
    run: async (platform, [email, title], flags) => {
      if (!email || !title) throw new Error('Give an email and a title.');
      const userId = await findUserId(platform, email);
      const id = await notifyUser(platform, { userId, title, body: flags.body ?? '', link: flags.link ?? null });
      console.log(`Notification ${id} queued for ${email}.`);
    },
  },
};

const printUsage = () => {
  console.log('Usage: npm run admin -- <command>\n');
  for (const command of [...Object.values(commands), ...Object.values(databaseCommands)]) {
    console.log(`  ${command.usage}`);
  }
};

const parseCommandLine = () => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        password: { type: 'string' },
        plan: { type: 'string' },
        body: { type: 'string' },
        link: { type: 'string' },
        reference: { type: 'string' },
        reason: { type: 'string' },
        'plan-name': { type: 'string' },
        price: { type: 'string' },
        'monthly-credits': { type: 'string' },
        'trial-credits': { type: 'string' },
        scheduling: { type: 'string' },
        accounts: { type: 'string' },
        'stripe-price': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    console.error(`Error: ${(error as Error).message}`);
    printUsage();
    process.exit(1);
  }
};
const { positionals, values } = parseCommandLine();
const [name, ...rest] = positionals;
const command = name ? commands[name] : undefined;
const databaseCommand = name ? databaseCommands[name] : undefined;
if ((!command && !databaseCommand) || values.help) {
  printUsage();
  process.exit(command || databaseCommand || values.help ? 0 : 1);
}

// The admin CLI only enqueues; running jobs is the worker's business.
const config = { ...loadConfig(process.env, []), role: 'web' as const };
if (databaseCommand) {
  try {
    await databaseCommand.runOnDatabase(config, rest);
    process.exit(0);
  } catch (error) {
    console.error(`Error: ${(error as Error).message}`);
    process.exit(1);
  }
}
if (!command) process.exit(1);
// Joins the running server's PostgreSQL, or starts it for the command's duration.
const opened = await openPlatform(config, pino({ level: 'warn' }), { adoptOrphanDatabase: false });
let exitCode = 0;
try {
  // --help is the only flag that is not text, and it never reaches a command.
  const flags: TFlags = Object.fromEntries(
    Object.entries(values).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
  await command.run(opened.platform, rest, flags);
} catch (error) {
  console.error(`Error: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await opened.close();
}
process.exit(exitCode);
