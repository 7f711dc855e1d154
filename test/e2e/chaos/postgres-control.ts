// The fleet's PostgreSQL (test/fleet/up.sh, $FLEET_ROOT/pg) stopped, killed and started again
// from a test, the way an operator's database restarts or crashes.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Fleet } from '../../fleet/fleet.js';

const run = promisify(execFile);

export class FleetPostgres {
  private readonly dir: string;
  private readonly bindir: string;
  private readonly osuser: string;
  private readonly port: string;

  constructor(fleet: Fleet) {
    this.dir = join(fleet.root, 'pg');
    this.bindir = readFileSync(join(this.dir, 'bindir'), 'utf8').trim();
    this.osuser = readFileSync(join(this.dir, 'osuser'), 'utf8').trim();
    this.port = new URL(fleet.databaseUrl).port;
  }

  private pgCtl(...args: string[]) {
    return run('runuser', ['-u', this.osuser, '--', join(this.bindir, 'pg_ctl'), '-D', join(this.dir, 'data'), ...args]);
  }

  /** A clean, fast shutdown (`pg_ctl stop -m fast`): every connection is told and closed. */
  async stop(): Promise<void> {
    await this.pgCtl('-w', '-t', '60', '-m', 'fast', 'stop');
  }

  /** A crash: SIGKILL to the postmaster and, by their ids, to its backends (a machine losing the process tree). */
  async kill(): Promise<void> {
    const pid = Number(readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = childrenOf(pid);
    process.kill(pid, 'SIGKILL');
    for (const child of children) {
      try {
        process.kill(child, 'SIGKILL');
      } catch { /* already gone */ }
    }
    for (const p of [pid, ...children]) {
      for (let i = 0; i < 400 && alive(p); i++) await new Promise((r) => setTimeout(r, 25));
    }
  }

  /**
   * Starts it with the options up.sh used but one (crash recovery runs first after a kill): commits
   * are synchronous, as in production. With up.sh's synchronous_commit=off a commit is answered
   * before its WAL leaves the server's memory, so killing the process tree loses the last ones the
   * controller was told succeeded (a webhook delivery recorded as claimed, then gone), which no
   * production database does. fsync stays off: a killed process does not lose the OS's cache.
   */
  async start(): Promise<void> {
    await this.pgCtl('-w', '-t', '60', '-l', join(this.dir, 'postgres.log'), '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`, 'start');
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Process ids whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch { /* gone meanwhile */ }
  }
  return out;
}
