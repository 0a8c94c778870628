/**
 * Where a measured stretch's CPU went, by process, read from /proc (Linux): this process,
 * the named child processes, PostgreSQL (its processes are all called `postgres`) and the
 * rest of the machine (the kernel's writeback threads among them). It says whether a rate
 * is held back by waiting or by the machine's cores being full, and who fills them.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Linux reports process CPU in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICK_MICROSECONDS = 10_000;

type TRole = string;

const cpuByRole = (self: TRole, children: Record<TRole, number | undefined>): Map<TRole, number> => {
  const roleOfPid = new Map<string, TRole>([[String(process.pid), self]]);
  for (const [role, pid] of Object.entries(children)) if (pid !== undefined) roleOfPid.set(String(pid), role);
  const totals = new Map<TRole, number>();
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return totals;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name: state is the 1st, utime the 12th, stime the 13th (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const role = roleOfPid.get(pid) ?? (name === 'postgres' ? 'PostgreSQL' : 'the rest');
    totals.set(role, (totals.get(role) ?? 0) + ticks);
  }
  return totals;
};

/**
 * Starts counting; `perItem(n)` gives each role's µs of CPU per item since then. `self`
 * names this process's part, `children` other processes by pid.
 */
export const countCpu = (self: TRole, children: Record<TRole, number | undefined> = {}) => {
  const before = cpuByRole(self, children);
  return {
    perItem: (items: number): Record<TRole, number> => {
      const after = cpuByRole(self, children);
      return Object.fromEntries(
        [...after].map(([role, ticks]) => [role, ((ticks - (before.get(role) ?? 0)) * TICK_MICROSECONDS) / items]),
      );
    },
  };
};

/** Each role's median over runs, in µs per item. */
export const medianCpu = (runs: Record<TRole, number>[]): Record<TRole, number> => {
  const roles = [...new Set(runs.flatMap((run) => Object.keys(run)))];
  return Object.fromEntries(
    roles.map((role) => {
      const values = runs.map((run) => run[role] ?? 0).sort((a, b) => a - b);
      return [role, values[Math.floor(values.length / 2)]!];
    }),
  );
};

/** "engine 47, PostgreSQL 119, …": each role's µs per item, largest first. */
export const describeCpu = (perItem: Record<TRole, number>) =>
  Object.entries(perItem)
    .filter(([, micros]) => micros >= 1)
    .sort(([, left], [, right]) => right - left)
    .map(([role, micros]) => `${role} ${Math.round(micros)}`)
    .join(', ');

/** The CPU time per item all processes together have at `rate` items a second on this machine's cores, in µs. */
export const cpuBudgetAt = (rate: number) => Math.round((os.cpus().length * 1e6) / rate);
