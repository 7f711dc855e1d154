import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export interface ConfigFragmentRow {
  id: string;
  environmentId: string;
  name: string;
  content: string;
  description: string | null;
  generation: number;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export class ConfigFragmentsRepository extends BaseRepository<ConfigFragmentRow> {
  constructor(db: Knex) {
    super(db, 'config_fragments', { config_fragments_env_name_unique: 'A config fragment with this name already exists in the environment' });
  }
}
