// The real service (`bin/stevedore.js serve`) as a child process on a fresh database of the
// PostgreSQL at `adminUrl`, for benchmarks that measure it from outside. stop() ends it and drops
// the database.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import knexFactory from 'knex';
import { freePort } from './process-stats.js';

export interface ServiceProcess {
  port: number;
  /** The bench's own database (for pg_stat_database figures). */
  database: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startServiceProcess(o: {
  adminUrl: string; prefix: string; env?: Record<string, string>; nodeArgs?: string[];
  /** An existing database to run on (seeded by the caller, who drops it); default a fresh one. */
  databaseUrl?: string;
  /** How long /health may take to answer 200 (default 60 s). */
  startTimeoutMs?: number;
}): Promise<ServiceProcess> {
  const own = !o.databaseUrl;
  const u = new URL(o.databaseUrl ?? o.adminUrl);
  const dbName = own ? `${o.prefix}_${crypto.randomBytes(4).toString('hex')}` : u.pathname.slice(1);
  const admin = knexFactory({ client: 'pg', connection: o.adminUrl, pool: { min: 0, max: 1 } });
  if (own) await admin.raw(`CREATE DATABASE ${dbName}`);
  u.pathname = '/' + dbName;
  const port = await freePort();
  // BENCH_NODE_ARGS (e.g. --cpu-prof): node's flags for the service of any bench that gives none
  const nodeArgs = o.nodeArgs ?? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, 'bin/stevedore.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: u.toString(), PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn', STEVEDORE_STATE_DIR: `/tmp/${dbName}`, ...o.env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = async () => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    if (own) await admin.raw(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.destroy();
  };
  for (let i = 0; ; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (i > (o.startTimeoutMs ?? 60_000) / 100 || child.exitCode !== null) {
      await stop();
      throw new Error('the service did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, database: dbName, child, stop };
}
