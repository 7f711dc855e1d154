import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export interface SecretRow {
  id: string;
  environmentId: string;
  key: string;
  valueSealed: string;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export class SecretsRepository extends BaseRepository<SecretRow> {
  constructor(db: Knex) {
    super(db, 'secrets', { secrets_env_key_unique: 'A secret with this key already exists in the environment' });
  }

  /** Keeps a sealed copy of a value that is being replaced or deleted (dry-run diffs redact it). */
  async remember(row: Pick<SecretRow, 'environmentId' | 'key' | 'valueSealed'>, trx?: Knex.Transaction) {
    await (trx ?? this.db)('secret_value_history').insert({ environmentId: row.environmentId, key: row.key, valueSealed: row.valueSealed });
  }

  async historyOf(environmentId: string): Promise<string[]> {
    const rows = await this.db('secret_value_history').where({ environmentId }).select('valueSealed');
    return rows.map((r: { valueSealed: string }) => r.valueSealed);
  }

  /** The keys defined in one environment. */
  keysOf(environmentId: string): Promise<string[]> {
    return this.q().where({ environmentId } as never).pluck('key');
  }
}

/** What reads of a secret show: never the value. */
export const toSecret = (r: SecretRow) => ({
  id: r.id, environmentId: r.environmentId, key: r.key, description: r.description, hasValue: true,
  createdAt: r.createdAt, updatedAt: r.updatedAt,
});
