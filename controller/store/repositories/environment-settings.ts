import type { Knex } from 'knex';
import { isUuid } from './base-repository.js';
import { hotQuery } from '../hot-query.js';
import { defaultSettingsRows, NOTIFICATIONS_MODULE, SETTINGS_MODULES } from '../../settings/environment-settings.js';

// The settings route's read (a hot path: every dashboard page asks): one prepared statement.
const ENVIRONMENT_SETTINGS = {
  name: 'environment_settings_if_exists',
  text: 'select s.values from environments e left join environment_settings s on s.environment_id = e.id and s.module = $2 where e.id = $1 limit 1',
};

const moduleOf = (name: string) => (name === 'notifications' ? NOTIFICATIONS_MODULE : SETTINGS_MODULES[name]);

/** environment_settings: one environment's settings modules; missing keys read as their defaults. */
export class SettingsStore {
  constructor(private readonly db: Knex) {}

  /** Every module at its defaults, for a new environment. */
  async insertDefaults(environmentId: string, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('environment_settings').insert(defaultSettingsRows(environmentId));
  }

  async get<T = Record<string, unknown>>(environmentId: string, module: string, trx?: Knex.Transaction): Promise<T> {
    const row = await (trx ?? this.db)('environment_settings').where({ environmentId, module }).first('values');
    return { ...moduleOf(module).defaults, ...(row?.values ?? {}) } as T;
  }

  /** get() of many environments with one query (a batch of looks across environments), by environment. */
  async getMany<T = Record<string, unknown>>(environmentIds: string[], module: string): Promise<Map<string, T>> {
    if (!environmentIds.length) return new Map();
    const rows = await this.db('environment_settings').whereIn('environmentId', environmentIds).where({ module }).select('environmentId', 'values');
    const stored = new Map(rows.map((r: { environmentId: string; values: Record<string, unknown> | null }) => [r.environmentId, r.values ?? {}]));
    return new Map(environmentIds.map((e) => [e, { ...moduleOf(module).defaults, ...(stored.get(e) ?? {}) } as T]));
  }

  /** The stored values of a module, {} when none are stored, undefined when the environment does not exist. */
  async getIfEnvironmentExists(environmentId: string, module: string): Promise<Record<string, unknown> | undefined> {
    if (!isUuid(environmentId)) return undefined;
    const [row] = await hotQuery<{ values: Record<string, unknown> | null }>(this.db, ENVIRONMENT_SETTINGS, [environmentId, module]);
    return row ? (row.values ?? {}) : undefined;
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
