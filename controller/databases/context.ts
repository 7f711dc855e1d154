import type { SecretBox } from '../crypto/secret-box.js';
import { conflict } from '../errors/app-error.js';
import type { EventBus } from '../events/event-bus.js';
import type { HostAccess } from '../hosts/host-access.js';
import { dockerExec, fillTokens } from '../hosts/commands/database.js';
import type { Logger } from '../logger.js';
import type { OutgoingGuard } from '../net/outgoing-guard.js';
import type { BackupsRepository, RestoresRepository } from '../store/repositories/backups.js';
import type { CommandTypesRepository } from '../store/repositories/command-types.js';
import type { DatabaseRow, DatabasesRepository } from '../store/repositories/databases.js';
import { engineOf } from './engines.js';
import type { MonitoringResult } from './monitoring-result.js';
import type { BackupStores } from './storage/stores.js';

/** What backups, restores and drills need; built once in create-services. */
export interface DatabaseContext {
  databases: DatabasesRepository;
  backups: BackupsRepository;
  restores: RestoresRepository;
  databaseTypes: CommandTypesRepository;
  hosts: HostAccess;
  stores: BackupStores;
  events: EventBus;
  logger: Logger;
  secretBox: SecretBox;
  /** A host/port database's TCP check connects through it (controller/net/outgoing-guard.ts). */
  outgoing: OutgoingGuard;
  /** This process's lease name on the backups and restores it runs (lease.ts). */
  owner: string;
  /** Hears every monitoring probe's result: the health log and alerts (controller/monitoring/database-checks.ts). */
  onProbed?: (db: DatabaseRow, result: MonitoringResult) => Promise<void>;
}

/** Where the database's commands run: its server and container (host/port databases have neither). */
export function placeOf(db: DatabaseRow): { serverId: string; container: string } {
  if (!db.serverId || !db.containerName) {
    throw conflict('This database has no server and container', 'Backups and restores run inside the container: set serverId and containerName');
  }
  return { serverId: db.serverId, container: db.containerName };
}

export interface Credentials { user: string; password: string | null }

export function credentialsOf(ctx: DatabaseContext, db: DatabaseRow): Credentials {
  return { user: db.username ?? (db.type === 'postgres' ? 'postgres' : 'root'), password: db.passwordEnc ? ctx.secretBox.open(db.passwordEnc) : null };
}

/**
 * The argv of one of the type's commands (backup, restore, check, query, ready) run inside
 * `container` with the given database and credentials.
 */
export async function typeCommand(ctx: DatabaseContext, type: string, name: string, o: {
  container: string; database: string; creds: Credentials; stdin?: boolean; query?: string;
}): Promise<string[]> {
  const row = await ctx.databaseTypes.findByName(type);
  const command = row?.commands.find((c) => c.name === name);
  if (!command) throw conflict(`Database type '${type}' has no '${name}' command`, 'Add it under /api/settings/database-types');
  const engine = engineOf(type);
  const env = o.creds.password && engine ? { [engine.passwordEnv]: o.creds.password } : {};
  const argv = fillTokens(command.command, { database: o.database, user: o.creds.user, query: o.query });
  return dockerExec({ container: o.container, argv, env, stdin: o.stdin });
}

/** A reason for a record: the tool's last stderr line(s), bounded; never holds the password (it is not in argv output). */
export function reasonOf(stderr: string, fallback: string): string {
  const text = stderr.trim().split('\n').slice(-5).join('\n').slice(-1000);
  return text || fallback;
}
