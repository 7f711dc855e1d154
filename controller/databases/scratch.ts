// A scratch container: a fresh, empty server of the database's own image on the same server,
// for restores that must not touch the real database and for restore drills. Labelled with its
// environment and database so it is never mistaken for (or removed as) anything else.
import { randomBytes } from 'node:crypto';
import { conflict } from '../errors/app-error.js';
import { inspectFormat, rm, run } from '../hosts/commands/docker.js';
import type { DatabaseRow } from '../store/repositories/databases.js';
import { engineOf, scratchUser } from './engines.js';
import { placeOf, typeCommand, type Credentials, type DatabaseContext } from './context.js';

export interface Scratch {
  serverId: string;
  container: string;
  creds: Credentials;
  remove(): Promise<void>;
}

const READY_TIMEOUT_MS = 120_000;
const READY_POLL_MS = 250;

export async function startScratch(ctx: DatabaseContext, db: DatabaseRow, purpose: string): Promise<Scratch> {
  const { serverId, container } = placeOf(db);
  const engine = engineOf(db.type);
  if (!engine) throw new Error(`no scratch container recipe for database type '${db.type}'`);
  const image = (await ctx.hosts.exec(serverId, inspectFormat('{{.Config.Image}}', container))).stdout.trim();
  const user = scratchUser(db.type, db.username ?? 'postgres');
  const password = randomBytes(18).toString('base64url');
  const name = `stevedore-${purpose}-${randomBytes(5).toString('hex')}`;
  await ctx.hosts.exec(serverId, run({
    name, image,
    labels: { 'stevedore.scratch': purpose, 'stevedore.environment': db.environmentId, 'stevedore.database': db.id },
    env: engine.scratchEnv(db.databaseName, user, password),
  }), { timeoutMs: 120_000 });
  const scratch: Scratch = {
    serverId, container: name, creds: { user, password },
    remove: async () => { await ctx.hosts.exec(serverId, rm(name, { force: true, volumes: true }), { check: false }); },
  };
  try {
    await waitReady(ctx, db, scratch);
  } catch (err) {
    await scratch.remove();
    throw err;
  }
  return scratch;
}

/** Polls the type's `ready` command until it exits 0 (a positive signal, not a fixed wait). */
async function waitReady(ctx: DatabaseContext, db: DatabaseRow, s: Scratch): Promise<void> {
  const argv = await typeCommand(ctx, db.type, 'ready', { container: s.container, database: db.databaseName, creds: s.creds });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const r = await ctx.hosts.exec(s.serverId, argv, { check: false });
    if (r.code === 0) return;
    last = (r.stderr || r.stdout).trim().slice(-300);
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  throw new Error(`the scratch container did not become ready within ${READY_TIMEOUT_MS / 1000} s${last ? `: ${last}` : ''}`);
}

/**
 * Removes the scratch container a restore kept for inspection. Only a container that carries
 * this database's scratch labels is removed, so a name reused by anything else is never touched.
 * False when the container is already gone.
 */
export async function removeKeptScratch(ctx: DatabaseContext, db: DatabaseRow, container: string): Promise<boolean> {
  const { serverId } = placeOf(db);
  const labels = await ctx.hosts.exec(serverId, inspectFormat('{{index .Config.Labels "stevedore.database"}} {{index .Config.Labels "stevedore.scratch"}}', container), { check: false });
  if (labels.code !== 0) {
    if (/no such (object|container)/i.test(labels.stderr)) return false;
    throw new Error(`docker inspect ${container} failed: ${labels.stderr.trim().slice(-300)}`);
  }
  const [database, purpose] = labels.stdout.trim().split(' ');
  if (database !== db.id || !purpose) throw conflict(`Container ${container} is not a scratch container of this database`, 'It was not removed');
  await ctx.hosts.exec(serverId, rm(container, { force: true, volumes: true }));
  return true;
}
