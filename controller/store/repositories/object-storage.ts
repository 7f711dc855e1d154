import type { Knex } from 'knex';

export interface ObjectStorageRow {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKeyEnc: string;
  forcePathStyle: boolean;
  updatedAt: Date;
}

export interface EnvironmentStorageRow {
  environmentId: string;
  enabled: boolean;
  bucket: string | null;
  prefix: string | null;
}

/** The global S3-compatible storage (one row) and each environment's use of it. */
export class ObjectStorageRepository {
  constructor(private readonly db: Knex) {}

  async get(): Promise<ObjectStorageRow | undefined> {
    return this.db('object_storage').where({ id: 1 }).first();
  }

  async save(values: Omit<ObjectStorageRow, 'updatedAt'>): Promise<ObjectStorageRow> {
    const [row] = await this.db('object_storage').insert({ id: 1, ...values, updatedAt: this.db.fn.now() })
      .onConflict('id').merge().returning('*');
    return row;
  }

  async remove(): Promise<boolean> {
    return (await this.db('object_storage').where({ id: 1 }).delete()) > 0;
  }

  async ofEnvironment(environmentId: string): Promise<EnvironmentStorageRow> {
    const row = await this.db('environment_storage').where({ environmentId }).first();
    return row ?? { environmentId, enabled: false, bucket: null, prefix: null };
  }

  async saveEnvironment(environmentId: string, changes: Partial<EnvironmentStorageRow>): Promise<EnvironmentStorageRow> {
    const next = { ...(await this.ofEnvironment(environmentId)), ...changes, environmentId };
    const [row] = await this.db('environment_storage').insert({ ...next, updatedAt: this.db.fn.now() })
      .onConflict('environmentId').merge().returning('*');
    return row;
  }
}
