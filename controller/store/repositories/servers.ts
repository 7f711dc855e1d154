import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';
import type { Condition } from '../../model/conditions.js';

export type DockerMode = 'ssh' | 'socket';
export type MetricsMode = 'disabled' | 'ssh' | 'agent';
export type HealthStatus = 'healthy' | 'unhealthy' | 'unknown';

export interface ServerRow {
  id: string;
  environmentId: string;
  name: string;
  hostname: string;
  sshPort: number;
  sshUser: string;
  dockerMode: DockerMode;
  dockerSocketPath: string | null;
  metricsMode: MetricsMode;
  tags: string[];
  /** Labels services select servers by (serverSelector.matchLabels). */
  labels: Record<string, string>;
  hostKeyFingerprint: string | null;
  healthStatus: HealthStatus;
  healthCheckedAt: Date | null;
  healthMessage: string | null;
  generation: number;
  observedGeneration: number | null;
  conditions: Condition[];
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** A server row with its environment's sealed SSH key (what reaching the server takes). */
export type ServerWithKeyRow = ServerRow & { sshPrivateKeySealed: string | null };

export class ServersRepository extends BaseRepository<ServerRow> {
  constructor(db: Knex) {
    super(db, 'servers', { servers_env_name_unique: 'A server with this name already exists in this environment' });
  }

  listByEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<ServerRow[]> {
    return this.q(trx).where({ environmentId }).orderBy('name') as unknown as Promise<ServerRow[]>;
  }

  /** A page of an environment's servers by name, only those whose labels hold every pair of `labels` when given. */
  async pageByLabels(environmentId: string, labels: Record<string, string> | undefined, page: PageQuery): Promise<Page<ServerRow>> {
    const base = () => {
      const q = this.q().where({ environmentId });
      return labels ? q.whereRaw('labels @> ?::jsonb', [JSON.stringify(labels)]) : q;
    };
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as ServerRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  listAll(trx?: Knex.Transaction): Promise<ServerRow[]> {
    return this.q(trx).orderBy(['environmentId', 'name']) as unknown as Promise<ServerRow[]>;
  }

  /** The server with its environment's sealed SSH key: what reaching it takes. */
  async withEnvironmentKey(id: string): Promise<ServerWithKeyRow | undefined> {
    return (await this.withEnvironmentKeys([id]))[0];
  }

  /** withEnvironmentKey of many servers in one query (a batch of looks). */
  async withEnvironmentKeys(ids: string[]): Promise<ServerWithKeyRow[]> {
    const valid = [...new Set(ids.filter(isUuid))];
    if (!valid.length) return [];
    return this.db('servers').join('environments', 'environments.id', 'servers.environmentId')
      .whereIn('servers.id', valid).select('servers.*', 'environments.sshPrivateKeySealed');
  }

  /** Pins a host key only where none is pinned yet; false when another was pinned first. */
  async pinHostKeyIfUnset(id: string, fingerprint: string): Promise<boolean> {
    return (await this.q().where({ id }).whereNull('hostKeyFingerprint').update({ hostKeyFingerprint: fingerprint } as never)) > 0;
  }

  /** Forgets the pinned host key only while it is this one; false when another is pinned (or none). */
  async forgetHostKey(id: string, fingerprint: string): Promise<boolean> {
    return (await this.q().where({ id, hostKeyFingerprint: fingerprint }).update({ hostKeyFingerprint: null } as never)) > 0;
  }

  /** Pins `fingerprint` only while the pinned key is still `replaces` (null: none); false when it is not. */
  async replaceHostKey(id: string, replaces: string | null, fingerprint: string): Promise<boolean> {
    const q = this.q().where({ id });
    return (await (replaces === null ? q.whereNull('hostKeyFingerprint') : q.where({ hostKeyFingerprint: replaces }))
      .update({ hostKeyFingerprint: fingerprint } as never)) > 0;
  }

  async hostKeyOf(id: string): Promise<string | null | undefined> {
    return (await this.q().where({ id }).first('hostKeyFingerprint'))?.hostKeyFingerprint;
  }

  /** The environment's server of this name, locked until the transaction ends. */
  findByNameForUpdate(environmentId: string, name: string, trx: Knex.Transaction): Promise<ServerRow | undefined> {
    return this.q(trx).where({ environmentId, name }).forUpdate().first() as Promise<ServerRow | undefined>;
  }

  /**
   * Stores a health result with the row locked, then runs `then` in the same transaction (the
   * events of the transition), so two concurrent checks cannot both announce one change.
   * Resolves to null when the server was deleted meanwhile.
   */
  async recordHealth<T>(id: string, result: { status: HealthStatus; message: string },
    then: (server: ServerRow, previous: HealthStatus, trx: Knex.Transaction) => Promise<T>): Promise<T | null> {
    return this.db.transaction(async (trx) => {
      const current = await this.q(trx).where({ id }).forUpdate().first('healthStatus');
      if (!current) return null;
      const [server] = await this.q(trx).where({ id })
        .update({ healthStatus: result.status, healthCheckedAt: trx.fn.now(), healthMessage: result.message } as never)
        .returning('*') as unknown as ServerRow[];
      return then(server!, (current as { healthStatus: HealthStatus }).healthStatus, trx);
    });
  }

  /** Writes the server's observed conditions (monitoring/server-conditions.ts). */
  /** Observed status: the conditions and the generation they describe (never a generation bump). */
  async recordConditions(id: string, conditions: Condition[], observedGeneration: number): Promise<void> {
    await this.q().where({ id }).update({ conditions: JSON.stringify(conditions), observedGeneration } as never);
  }

  /**
   * The ids of the servers the controller can reach without more set-up: socket mode, or an
   * environment that holds an SSH key. Ids only: the watches' sync asks every 5 s and reads the
   * rows (withEnvironmentKeys) of just the servers it has no watch for yet (10,000 servers: 10,000
   * rows with their keys every 5 s otherwise).
   */
  async listReachableIds(trx?: Knex.Transaction): Promise<string[]> {
    const rows = await this.q(trx).join('environments', 'environments.id', 'servers.environmentId')
      .where((w) => w.where('servers.dockerMode', 'socket').orWhereNotNull('environments.sshPrivateKeySealed'))
      .select('servers.id') as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }
}

/** What the API shows of a server: health grouped, nothing secret (servers hold none). */
export function toServer(r: ServerRow) {
  return {
    id: r.id, environmentId: r.environmentId, name: r.name, hostname: r.hostname, sshPort: r.sshPort,
    sshUser: r.sshUser, dockerMode: r.dockerMode, dockerSocketPath: r.dockerSocketPath, metricsMode: r.metricsMode,
    tags: r.tags, labels: r.labels ?? {}, hostKeyFingerprint: r.hostKeyFingerprint,
    health: { status: r.healthStatus, checkedAt: r.healthCheckedAt, message: r.healthMessage },
    generation: r.generation, observedGeneration: r.observedGeneration, conditions: r.conditions, status: r.status, source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}
