import type { ApiClient } from './api-client.js';
import { CliError } from './cli-error.js';
import type { Palette } from './format-changes.js';
import { liveDisplay, plainDisplay, waveLine, type CurrentWave, type PlanStep } from './plan-display.js';
import { readSse } from './sse-client.js';
import { serverNames } from './resolve.js';

const ENDED = ['succeeded', 'failed', 'cancelled', 'rolled_back', 'rollback_failed'];

export type Step = PlanStep & { rollbackError?: string | null };
export interface Plan { id: string; status: string; error: string | null; steps: Step[]; currentWave?: CurrentWave | null }

/** Why a plan did not succeed, from its failed step when it has one. */
export function planFailure(plan: Plan, names: Map<string, string>): string {
  const step = plan.steps.find((s) => s.status === 'failed') ?? plan.steps.find((s) => s.error);
  const where = step ? ` at ${step.containerName} on ${names.get(step.serverId ?? '') ?? step.serverId}` : '';
  return `plan ${plan.id} ${plan.status}${where}: ${step?.error ?? plan.error ?? 'no reason recorded'}`;
}

/**
 * Follows a plan to its end: each step's change as it happens (the plan's SSE stream wakes the
 * check; the plan's own read says what changed, so a missed frame loses nothing), then the
 * result. Throws (exit 1) when the plan did not succeed, naming the step and its reason.
 */
export async function followPlan(api: ApiClient, planId: string, p: Palette, write: (s: string) => void, live = false): Promise<Plan> {
  const plan0 = await api.get<Plan & { environmentId: string }>(`/api/deployment-plans/${planId}`);
  const names = await serverNames(api, plan0.environmentId);
  const display = (live ? liveDisplay : plainDisplay)(names, p, write);
  const check = async (): Promise<Plan | null> => {
    const plan = await api.get<Plan>(`/api/deployment-plans/${planId}`);
    display.show(planId, plan.status, [...plan.steps].sort((a, b) => a.position - b.position), waveLine(plan.currentWave));
    return ENDED.includes(plan.status) ? plan : null;
  };
  let final = await check();
  while (!final) {
    await readSse(api, `/api/deployment-plans/${planId}/events`, async () => !!(final = await check()));
    final ??= await check();
  }
  if (final.status !== 'succeeded') throw new CliError(planFailure(final, names));
  return final;
}
