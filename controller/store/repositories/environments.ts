import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export interface EnvironmentRow {
  id: string;
  name: string;
  description: string | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export class EnvironmentsRepository extends BaseRepository<EnvironmentRow> {
  constructor(db: Knex) {
    super(db, 'environments', { environments_name_unique: 'An environment with this name already exists' });
  }

  findByName(name: string, trx?: Knex.Transaction) {
    return this.findOne({ name }, trx);
  }
}

export function toEnvironment(e: EnvironmentRow) {
  return {
    id: e.id, name: e.name, description: e.description, generation: e.generation,
    status: e.status, source: e.source, createdAt: e.createdAt, updatedAt: e.updatedAt,
  };
}
