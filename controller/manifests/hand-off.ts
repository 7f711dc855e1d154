import type { Services } from '../services.js';
import type { ApplyResult } from './apply.js';

/**
 * Hands services whose template or placements a manifest changed to the deploy engine, one
 * plan per environment; returns the plan ids. Until the engine is wired in, an event records
 * what would be deployed so reconcilers and tests can follow.
 */
export async function startPlans(s: Services, changed: ApplyResult['changedServices']): Promise<string[]> {
  const byEnv = new Map<string, ApplyResult['changedServices']>();
  for (const c of changed) byEnv.set(c.environmentId, [...(byEnv.get(c.environmentId) ?? []), c]);
  const plans: string[] = [];
  for (const [environmentId, items] of byEnv) {
    await s.events.publish('manifests.services_changed', environmentId, { serviceIds: items.map((i) => i.id), names: items.map((i) => i.name) });
  }
  return plans;
}
