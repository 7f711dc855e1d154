import { BaseRepository } from './base-repository.js';

/** A backup's, restore's or drill's condition on what it ran for (a database, a volume). */
export interface RunCondition { type: string; status: boolean; reason: string; message: string }

/** A table whose rows keep status.conditions as backups and drills write them (databases, volumes). */
export class ConditionedRepository<Row extends { id: string; status: Record<string, unknown> }> extends BaseRepository<Row> {
  /** Merges a condition into status.conditions (Degraded, DrillSucceeded...), keyed by type. */
  async setCondition(id: string, condition: RunCondition): Promise<void> {
    const row = await this.findById(id);
    if (!row) return;
    const conditions = ((row.status?.conditions as Array<{ type: string }>) ?? []).filter((c) => c.type !== condition.type);
    const status = { ...row.status, conditions: [...conditions, { ...condition, lastTransitionTime: new Date().toISOString() }] };
    await this.q().where({ id } as never).update({ status: JSON.stringify(status) } as never);
  }
}
