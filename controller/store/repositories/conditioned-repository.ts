import { BaseRepository } from './base-repository.js';

/** A backup's, restore's or drill's condition on what it ran for (a database, a volume). */
export interface RunCondition { type: string; status: boolean; reason: string; message: string }

/** A table whose rows keep status.conditions as backups and drills write them (databases, volumes). */
export class ConditionedRepository<Row extends { id: string; status: Record<string, unknown> }> extends BaseRepository<Row> {
  /** Merges a condition into status.conditions (Degraded, DrillSucceeded...), keyed by type. */
  setCondition(id: string, condition: RunCondition): Promise<void> {
    return this.setConditions(id, [condition]);
  }

  /** Merges conditions with one write: a reader never sees one of them without the others. */
  async setConditions(id: string, set: RunCondition[]): Promise<void> {
    const row = await this.findById(id);
    if (!row) return;
    const types = new Set(set.map((c) => c.type));
    const kept = ((row.status?.conditions as Array<{ type: string }>) ?? []).filter((c) => !types.has(c.type));
    const at = new Date().toISOString();
    const status = { ...row.status, conditions: [...kept, ...set.map((c) => ({ ...c, lastTransitionTime: at }))] };
    await this.q().where({ id } as never).update({ status: JSON.stringify(status) } as never);
  }
}
