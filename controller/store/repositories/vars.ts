import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export interface VarRow {
  id: string;
  environmentId: string;
  key: string;
  value: string;
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export class VarsRepository extends BaseRepository<VarRow> {
  constructor(db: Knex) {
    super(db, 'vars', { vars_env_key_unique: 'A var with this key already exists in the environment' });
  }

  /** The keys defined in one environment. */
  keysOf(environmentId: string): Promise<string[]> {
    return this.q().where({ environmentId } as never).pluck('key');
  }
}
