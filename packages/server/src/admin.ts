import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createUser } from './modules/auth/auth.service';
import { notifyUser } from './modules/notifications/notifications.service';
import { openPlatform } from './platform/bootstrap';
import { loadConfig } from './platform/config';
import type { TPlatform } from './platform/context';
import { hashPassword } from './platform/passwords';

/**
 * Operator tasks from the command line: `npm run admin -- <command> …`. It joins the
 * running embedded PostgreSQL (or starts it, or uses DATABASE_URL), never the web app.
 */
type TCommand = {
  usage: string;
  run: (platform: TPlatform, positionals: string[], flags: Record<string, string | undefined>) => Promise<void>;
};

const findUserId = async (platform: TPlatform, email: string) => {
  const user = await platform.db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (!user) throw new Error(`No user with the email ${email}.`);
  return user.id;
};

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
      await platform.db
        .updateTable('users')
        .set({ password_hash: await hashPassword(password), updated_at: new Date() })
        .where('id', '=', userId)
        .execute();
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
  for (const command of Object.values(commands)) console.log(`  ${command.usage}`);
};

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    password: { type: 'string' },
    plan: { type: 'string' },
    body: { type: 'string' },
    link: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
const [name, ...rest] = positionals;
const command = name ? commands[name] : undefined;
if (!command || values.help) {
  printUsage();
  process.exit(command || values.help ? 0 : 1);
}

// The admin CLI only enqueues; running jobs is the worker's business.
const config = { ...loadConfig(process.env, []), role: 'web' as const };
// Joins the running server's PostgreSQL, or starts it for the command's duration.
const opened = await openPlatform(config, pino({ level: 'warn' }), { adoptOrphanDatabase: false });
let exitCode = 0;
try {
  await command.run(opened.platform, rest, values as Record<string, string | undefined>);
} catch (error) {
  console.error(`Error: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await opened.close();
}
process.exit(exitCode);
