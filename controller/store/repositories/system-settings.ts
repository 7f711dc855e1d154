import type { Knex } from 'knex';

export interface SystemSettingsRow<Values> { values: Partial<Values>; registryAccessTokenEnc: string | null; updatedAt: Date }

export interface ErrorTrackingRow {
  errorTrackingDsnEnc: string | null;
  errorTrackingEnabled: boolean;
  errorTrackingEnvironment: string | null;
  errorTrackingLastTest: Record<string, unknown> | null;
}

/** system_settings: the single row (id 1) of system-wide settings, created on first read. */
export class SystemSettingsRepository<Values> {
  constructor(private readonly db: Knex) {}

  async row(): Promise<SystemSettingsRow<Values>> {
    const row = await this.db('system_settings').where('id', 1).first();
    if (row) return row as SystemSettingsRow<Values>;
    await this.db('system_settings').insert({ id: 1 }).onConflict('id').ignore();
    return { values: {}, registryAccessTokenEnc: null, updatedAt: new Date() };
  }

  /**
   * Rewrites the row under a lock: `next` gets the stored values and answers the new ones, and
   * the sealed token when it changes (undefined keeps it).
   */
  async update(next: (stored: Partial<Values>) => { values: Partial<Values>; registryAccessTokenEnc?: string | null }): Promise<void> {
    await this.db.transaction(async (trx) => {
      const row = await trx('system_settings').where('id', 1).forUpdate().first();
      const out = next((row?.values ?? {}) as Partial<Values>);
      const update: Record<string, unknown> = { values: JSON.stringify(out.values), updatedAt: trx.fn.now() };
      if (out.registryAccessTokenEnc !== undefined) update.registryAccessTokenEnc = out.registryAccessTokenEnc;
      if (row) await trx('system_settings').where('id', 1).update(update);
      else await trx('system_settings').insert({ id: 1, ...update });
    });
  }

  /** The error-tracking columns of the row. */
  async errorTracking(): Promise<ErrorTrackingRow> {
    await this.row();
    const row = await this.db('system_settings').where('id', 1)
      .first('errorTrackingDsnEnc', 'errorTrackingEnabled', 'errorTrackingEnvironment', 'errorTrackingLastTest');
    return row as ErrorTrackingRow;
  }

  async setErrorTracking(changes: Partial<ErrorTrackingRow>): Promise<void> {
    await this.row();
    const values: Record<string, unknown> = { ...changes, updatedAt: this.db.fn.now() };
    if (changes.errorTrackingLastTest !== undefined) values.errorTrackingLastTest = JSON.stringify(changes.errorTrackingLastTest);
    await this.db('system_settings').where('id', 1).update(values);
  }
}
