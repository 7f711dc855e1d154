// The states of DECISIONS.md and the only transitions allowed between them. Every status write
// of the plan runner goes through `nextPlanStatus`/`nextStepStatus`, so an impossible transition
// is a bug that throws instead of a row that silently lies.

export const PLAN_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'cancelled', 'rolling_back', 'rolled_back', 'rollback_failed'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export const STEP_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled', 'rolled_back'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

const PLAN_EDGES: Record<PlanStatus, PlanStatus[]> = {
  pending: ['running', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled', 'rolling_back'],
  // a finished plan may be rolled back by hand
  succeeded: ['rolling_back'],
  failed: ['rolling_back'],
  cancelled: ['rolling_back'],
  rolling_back: ['rolled_back', 'rollback_failed'],
  rolled_back: [],
  rollback_failed: ['rolling_back'],
};

const STEP_EDGES: Record<StepStatus, StepStatus[]> = {
  pending: ['running', 'skipped', 'cancelled'],
  running: ['succeeded', 'failed'],
  succeeded: ['rolled_back'],
  failed: ['rolled_back'],
  skipped: [],
  cancelled: [],
  rolled_back: [],
};

export const isTerminalPlan = (s: PlanStatus) => s !== 'pending' && s !== 'running' && s !== 'rolling_back';
/** States in which a process is working on the plan (a crash leaves them behind). */
export const ACTIVE_PLAN_STATUSES: PlanStatus[] = ['running', 'rolling_back'];

export class InvalidTransition extends Error {}

export function canPlan(from: PlanStatus, to: PlanStatus): boolean {
  return PLAN_EDGES[from].includes(to);
}

export function nextPlanStatus(from: PlanStatus, to: PlanStatus): PlanStatus {
  if (!canPlan(from, to)) throw new InvalidTransition(`plan cannot go from ${from} to ${to}`);
  return to;
}

export function nextStepStatus(from: StepStatus, to: StepStatus): StepStatus {
  if (!STEP_EDGES[from].includes(to)) throw new InvalidTransition(`step cannot go from ${from} to ${to}`);
  return to;
}

/** How a plan ends once no step is left to run. */
export function outcomeOf(steps: { status: StepStatus }[], cancelRequested: boolean): PlanStatus {
  if (steps.some((s) => s.status === 'failed')) return 'failed';
  if (cancelRequested && steps.some((s) => s.status === 'cancelled')) return 'cancelled';
  return 'succeeded';
}

/** How a rollback ends: rolled_back only when every touched step came back. */
export function rollbackOutcome(results: boolean[]): PlanStatus {
  return results.every(Boolean) ? 'rolled_back' : 'rollback_failed';
}

/**
 * Steps a rollback must undo, newest first: every step that changed (or tried to change) a
 * container; with `toLastGood` (services an automatic rollback returns to their last good
 * revision), their skipped steps too, whose containers an earlier, superseded plan may have changed.
 */
export function stepsToRollBack<T extends { status: StepStatus; position: number; serviceId?: string | null }>(steps: T[],
  toLastGood: ReadonlySet<string> = new Set()): T[] {
  return steps.filter((s) => s.status === 'succeeded' || s.status === 'failed' || (s.status === 'skipped' && !!s.serviceId && toLastGood.has(s.serviceId)))
    .sort((a, b) => b.position - a.position);
}
