// The pure halves of the chaos harness's invariants (bench/chaos/invariants.ts reads the world;
// these decide), unit-tested in test/unit/bench/chaos-verdicts.test.ts.
import type { Suspect } from './api.js';

export const TERMINAL_PLAN = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];

/**
 * The suspects that break the API invariant: any status outside 2xx/4xx/503, and a dropped
 * connection (status 0) unless its replica was killed by the harness during the request.
 */
export function brokenAnswers(suspects: readonly Suspect[], wasDown: (replica: string, from: number, to: number) => boolean): Suspect[] {
  return suspects.filter((s) => s.status !== 0 || !wasDown(s.replica, s.started, s.ended));
}

export interface PlanRow { id: string; name: string; status: string; createdAt: Date | string }

/**
 * A plan's deadline: it must have ended `budgetMs` after the later of its creation and the end of
 * the last fault (a plan may wait out a fault; it may not outlive it by more than the budget).
 */
export function overduePlans(plans: readonly PlanRow[], now: number, lastRestoredAt: number, budgetMs: number): PlanRow[] {
  return plans.filter((p) => !TERMINAL_PLAN.includes(p.status) && now > Math.max(new Date(p.createdAt).getTime(), lastRestoredAt) + budgetMs);
}

export interface ServiceStatus {
  name: string;
  desiredRevision: number | null;
  currentRevision: number | null;
  failedRevision: { revision: number; reason: string } | null;
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
}

/**
 * Which revision the service's containers must run once its plans have ended, and whether its
 * status says so truthfully: the desired one when it did not fail (then it is current too), else
 * the last good one (current), with the failure recorded and the service Degraded.
 */
export function revisionTarget(s: ServiceStatus): { target: number | null; problem?: string } {
  const d = s.desiredRevision;
  const c = s.currentRevision;
  const f = s.failedRevision?.revision ?? null;
  if (d === null) return { target: null, problem: `${s.name}: no desired revision` };
  if (f === null) {
    if (c !== d) return { target: d, problem: `${s.name}: desired r${d}, current r${c ?? '-'}, and no failure recorded` };
    return { target: d };
  }
  if (f !== d) return { target: c, problem: `${s.name}: failedRevision r${f} is not the desired r${d}` };
  if (c === null) return { target: null, problem: `${s.name}: r${d} failed and there is no last good revision` };
  const degraded = s.conditions.find((x) => x.type === 'Degraded');
  if (degraded?.status !== 'True') return { target: c, problem: `${s.name}: r${d} failed (${s.failedRevision!.reason}) but Degraded is ${degraded?.status ?? 'absent'}` };
  return { target: c };
}

export interface Observed { id: string; running: boolean; startedAt: string; dockerd: string }

/**
 * Whether a container no plan may touch was: removed, recreated (a new id), stopped, or restarted
 * with no restart of its server's dockerd (`dockerd`: the daemon's pid) to explain it.
 */
export function touched(before: Observed, now: Observed | null): string | null {
  if (!now) return 'removed';
  if (now.id !== before.id) return `recreated: id ${before.id.slice(0, 12)} → ${now.id.slice(0, 12)}`;
  if (!now.running) return `stopped (StartedAt ${now.startedAt})`;
  if (now.startedAt !== before.startedAt && now.dockerd === before.dockerd) return `restarted (StartedAt ${before.startedAt} → ${now.startedAt}) with the same dockerd`;
  return null;
}

/**
 * The 503s "the database is not reachable" given while it was: those overlapping no window of a
 * database fault (from its injection to its recovery, plus a grace for answers already on their
 * way) are a status that lies.
 */
export function unexplainedUnavailable(answers: readonly Suspect[], windows: ReadonlyArray<readonly [number, number]>, graceMs: number): Suspect[] {
  return answers.filter((a) => !windows.some(([from, to]) => a.ended >= from && a.started <= to + graceMs));
}
