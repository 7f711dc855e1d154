// Reachability of the databases with monitoring on, through the same test as
// POST /api/databases/{id}/test (the type's check command in its container, or a TCP connect),
// each at most every collectionIntervalSec: a health log and an alert state like every check.
import type { Services } from '../services.js';
import type { DatabaseRow } from '../store/repositories/databases.js';
import { alertPolicy } from './alert-policy.js';
import type { CheckResult } from './check-result.js';
import { recordCheck } from './record-check.js';

/** Pure: the check result of one database test. */
export function databaseCheck(db: DatabaseRow, t: { ok: boolean; message: string; durationMs: number }): CheckResult {
  const where = db.host && !db.containerName ? `${db.host}:${db.port}` : `container ${db.containerName}`;
  return {
    environmentId: db.environmentId, kind: 'database', checkKey: `database:${db.id}`, serverId: db.serverId, deploymentId: null,
    target: `database ${db.name} (${where})`, status: t.ok ? 'ok' : 'failed', latencyMs: t.durationMs,
    error: t.ok ? null : t.message.slice(0, 500), details: { databaseId: db.id, message: t.message.slice(0, 500) },
  };
}

export interface DatabaseCheckOptions {
  /** Only this environment's databases, all of them now (the immediate run route). */
  environmentId?: string;
  now?: Date;
}

/** Tests every monitored database whose last check is older than its interval; answers the results. */
export async function checkDatabases(s: Services, o: DatabaseCheckOptions = {}): Promise<CheckResult[]> {
  const now = o.now ?? new Date();
  const policy = await alertPolicy(s.notificationTypeSettings);
  const out: CheckResult[] = [];
  const all = await s.databaseOps.ctx.databases.monitored();
  for (const db of o.environmentId ? all.filter((d) => d.environmentId === o.environmentId) : all) {
    const last = o.environmentId ? undefined : await s.alertStates.find(`database:${db.id}`);
    if (last && now.getTime() - new Date(last.lastCheckedAt).getTime() < db.collectionIntervalSec * 1000) continue;
    const r = databaseCheck(db, await s.databaseOps.test(db));
    await recordCheck(s, r, policy);
    out.push(r);
  }
  return out;
}
