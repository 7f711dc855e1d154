import type { Knex } from 'knex';
import { isUuid } from './base-repository.js';
import type { ManifestSource } from '../../manifests/owned-fields.js';

/** The tables `disown` reaches, by the API's item collection (`/api/<collection>/{id}`). */
export const DISOWNABLE: Record<string, { table: string; kind: string; label: string }> = {
  services: { table: 'services', kind: 'Service', label: 'name' },
  servers: { table: 'servers', kind: 'Server', label: 'name' },
  vars: { table: 'vars', kind: 'Var', label: 'key' },
  secrets: { table: 'secrets', kind: 'Secret', label: 'key' },
  'config-files': { table: 'config_files', kind: 'ConfigFile', label: 'name' },
  registries: { table: 'registry_connections', kind: 'Registry', label: 'name' },
  'container-images': { table: 'container_images', kind: 'ContainerImage', label: 'imageName' },
  databases: { table: 'databases', kind: 'Database', label: 'name' },
};

export interface OwnedRow { id: string; environmentId: string; label: string; source: ManifestSource }

const API_SOURCE = JSON.stringify({ kind: 'api' });

/**
 * Who owns a row: the manifest that set its fields (its `source`), or the API. Releasing hands
 * the row (and a service's deployments, whose list the manifest set too) to the API, so that
 * PATCH, DELETE and `deploy --tag` no longer answer 409; the next apply of a manifest that
 * declares it takes it over again.
 */
export class ManifestOwnershipRepository {
  constructor(private readonly db: Knex) {}

  async find(collection: string, id: string): Promise<OwnedRow | undefined> {
    const t = DISOWNABLE[collection];
    if (!t || !isUuid(id)) return undefined;
    const row = await this.db(t.table).where({ id }).first('id', 'environmentId', `${t.label} as label`, 'source');
    return row as OwnedRow | undefined;
  }

  /** Hands the row to the API; answers false when a concurrent write did it first. */
  async release(collection: string, id: string): Promise<boolean> {
    const t = DISOWNABLE[collection];
    return this.db.transaction(async (trx) => {
      const n = await trx(t.table).where({ id }).whereRaw("source->>'kind' = 'manifest'").update({ source: API_SOURCE });
      if (collection === 'services') await trx('deployments').where({ serviceId: id }).whereRaw("source->>'kind' = 'manifest'").update({ source: API_SOURCE });
      return n > 0;
    });
  }
}
