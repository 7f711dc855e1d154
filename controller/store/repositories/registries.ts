import type { Knex } from 'knex';
import { conflict } from '../../errors/app-error.js';
import type { KindDescriptor } from '../../kinds/kind.js';
import { BaseRepository } from './base-repository.js';
import { KindRepository, type KindRow } from './kind-repository.js';

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

  /** The environment's registry connections, its default first. */
  listDefaultFirst(environmentId: string): Promise<RegistryRow[]> {
    return this.q().where({ environmentId } as never).orderBy('isDefault', 'desc') as Promise<RegistryRow[]>;
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

/**
 * Registry connections as the generic CRUD routes write them: one default per environment (a
 * connection made the default unsets the others in the same transaction), and no delete while
 * container images use one (409 saying how many).
 */
export class RegistryKindRepository extends KindRepository {
  constructor(db: Knex, kind: KindDescriptor) {
    super(db, kind, { container_images_registry_connection_id_foreign: 'Container images still use this registry connection' });
  }

  protected override async afterWrite(trx: Knex.Transaction, row: KindRow, body: Record<string, unknown>) {
    if (!body.isDefault) return;
    await trx('registry_connections').where({ environmentId: row.environmentId, isDefault: true }).whereNot('id', row.id)
      .update({ isDefault: false, updatedAt: this.db.fn.now() });
  }

  override async remove(row: KindRow): Promise<void> {
    const [{ count }] = await this.db('container_images').where('registryConnectionId', row.id).count({ count: '*' });
    if (Number(count) > 0) {
      throw conflict(`${count} container image(s) still use this registry connection`, 'Delete those images or point them at another registry first');
    }
    await super.remove(row);
  }
}
