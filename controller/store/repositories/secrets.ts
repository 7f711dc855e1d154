import type { Knex } from 'knex';
import type { KindDescriptor } from '../../kinds/kind.js';
import { BaseRepository } from './base-repository.js';
import { KindRepository, type KindRow } from './kind-repository.js';

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

/**
 * Secrets as the generic CRUD routes write them: a value replaced or deleted is remembered
 * (sealed, in secret_value_history) in the same transaction, so dry-run diffs can redact it.
 */
export class SecretKindRepository extends KindRepository {
  private readonly secrets: SecretsRepository;

  constructor(db: Knex, kind: KindDescriptor) {
    super(db, kind);
    this.secrets = new SecretsRepository(db);
  }

  override async change(row: KindRow, body: Record<string, unknown>): Promise<KindRow> {
    if (body.valueSealed === undefined) return super.change(row, body);
    return this.db.transaction(async (trx) => {
      await this.secrets.remember(row as unknown as SecretRow, trx);
      return super.change(row, body, trx);
    });
  }

  override async remove(row: KindRow): Promise<void> {
    await this.db.transaction(async (trx) => {
      await this.secrets.remember(row as unknown as SecretRow, trx);
      await this.delete(row.id, trx);
    });
  }
}
