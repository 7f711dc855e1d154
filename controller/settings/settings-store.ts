import type { Knex } from 'knex';
import { NOTIFICATIONS_MODULE, SETTINGS_MODULES } from './environment-settings.js';

const moduleOf = (name: string) => (name === 'notifications' ? NOTIFICATIONS_MODULE : SETTINGS_MODULES[name]);

/** Reads and writes one environment's settings modules; missing keys read as their defaults. */
export class SettingsStore {
  constructor(private readonly db: Knex) {}

  async get<T = Record<string, unknown>>(environmentId: string, module: string, trx?: Knex.Transaction): Promise<T> {
    const row = await (trx ?? this.db)('environment_settings').where({ environmentId, module }).first('values');
    return { ...moduleOf(module).defaults, ...(row?.values ?? {}) } as T;
  }

  async patch(environmentId: string, module: string, changes: Record<string, unknown>, trx?: Knex.Transaction) {
    const next = { ...(await this.get(environmentId, module, trx)), ...changes };
    await (trx ?? this.db)('environment_settings')
      .insert({ environmentId, module, values: JSON.stringify(next), updatedAt: this.db.fn.now() })
      .onConflict(['environmentId', 'module']).merge();
    return next;
  }

  async reset(environmentId: string, module: string, trx?: Knex.Transaction) {
    const defaults = moduleOf(module).defaults;
    await (trx ?? this.db)('environment_settings')
      .insert({ environmentId, module, values: JSON.stringify(defaults), updatedAt: this.db.fn.now() })
      .onConflict(['environmentId', 'module']).merge();
    return { ...defaults };
  }
}
