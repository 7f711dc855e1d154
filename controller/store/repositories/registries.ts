import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';

export interface RegistryRow {
  id: string;
  environmentId: string;
  name: string;
  type: 'cloudhost' | 'containerhub' | 'generic';
  registryUrl: string;
  repositoryPrefix: string | null;
  username: string | null;
  tokenEnc: string | null;
  passwordEnc: string | null;
  isDefault: boolean;
  refreshIntervalMinutes: number;
  autoLinkPattern: string | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export class RegistriesRepository extends BaseRepository<RegistryRow> {
  constructor(db: Knex) {
    super(db, 'registry_connections', {
      registry_connections_env_name_unique: 'A registry connection with this name already exists in this environment',
      container_images_registry_connection_id_foreign: 'Container images still use this registry connection',
    });
  }

  /** One page of an environment's connections by name, with the total from the same query. */
  async pageOf(environmentId: string, page: PageQuery): Promise<Page<RegistryRow>> {
    if (!isUuid(environmentId)) return { items: [], total: 0, limit: page.limit, offset: page.offset };
    const rows = await this.q().where('environmentId', environmentId)
      .select('*', this.db.raw('count(*) over () as full_count'))
      .orderBy([{ column: 'name' }, { column: 'id' }]).limit(page.limit).offset(page.offset) as (RegistryRow & { fullCount: number })[];
    let total = rows[0]?.fullCount;
    if (total === undefined) {
      const [{ count }] = await this.q().where('environmentId', environmentId).count({ count: '*' });
      total = Number(count);
    }
    return { items: rows.map(({ fullCount: _f, ...r }) => r as RegistryRow), total: Number(total), limit: page.limit, offset: page.offset };
  }

  /** Makes `keepId` the only default registry of its environment. */
  /** The environment's registry connections, its default first. */
  listDefaultFirst(environmentId: string): Promise<RegistryRow[]> {
    return this.q().where({ environmentId } as never).orderBy('isDefault', 'desc') as Promise<RegistryRow[]>;
  }

  async unsetOtherDefaults(environmentId: string, keepId: string, trx: Knex.Transaction): Promise<void> {
    await this.q(trx).where({ environmentId, isDefault: true } as never).whereNot('id', keepId)
      .update({ isDefault: false, updatedAt: this.db.fn.now() } as never);
  }

  /** The environment's connection for a registry host (the default first), for images that name none. */
  async forHost(environmentId: string, host: string, trx?: Knex.Transaction): Promise<RegistryRow | undefined> {
    const rows = await this.q(trx).where({ environmentId } as never).orderBy('isDefault', 'desc') as RegistryRow[];
    return rows.find((r) => {
      try {
        return new URL(r.registryUrl.includes('://') ? r.registryUrl : `https://${r.registryUrl}`).host === host;
      } catch {
        return false;
      }
    });
  }

  async imageCount(id: string): Promise<number> {
    const [{ count }] = await this.db('container_images').where('registryConnectionId', id).count({ count: '*' });
    return Number(count);
  }

  /** Decrypted credentials, for the code that talks to the registry (never for API reads). */
  credentialsOf(row: RegistryRow, open: (sealed: string) => string) {
    return {
      username: row.username,
      token: row.tokenEnc ? open(row.tokenEnc) : null,
      password: row.passwordEnc ? open(row.passwordEnc) : null,
    };
  }
}

/** What the API shows of a registry connection: credential-free, with hasToken/hasPassword. */
export function toRegistry(r: RegistryRow) {
  return {
    id: r.id, environmentId: r.environmentId, name: r.name, type: r.type, registryUrl: r.registryUrl,
    repositoryPrefix: r.repositoryPrefix, username: r.username, hasToken: !!r.tokenEnc, hasPassword: !!r.passwordEnc,
    isDefault: r.isDefault, refreshIntervalMinutes: r.refreshIntervalMinutes, autoLinkPattern: r.autoLinkPattern,
    generation: r.generation, status: r.status, source: r.source, createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}
