import type { Services } from '../controller/services.js';
import type { DeploymentRow } from '../controller/store/repositories/deployments.js';
import type { ApplyResult } from '../controller/manifests/apply.js';
import { requestConvergence, requestRemoval, type EntranceServices } from './entrance.js';

/**
 * Hands services whose template or placements a manifest changed to the entrance: per
 * environment, one plan (in dependency order, started at once) over the deployments whose
 * container differs from the desired one. A re-apply that changes nothing running creates no
 * plan. Services without deployments are skipped (nothing to run). `name` names the plan and its
 * revisions after what was applied (`manifests <commit or content hash>`). Returns the plan ids.
 */
export async function startPlans(s: EntranceServices, changed: ApplyResult['changedServices'], name: string): Promise<string[]> {
  const placed = new Set((await s.deployments.listByServices(changed.map((c) => c.id))).map((d) => d.serviceId));
  const byEnv = new Map<string, ApplyResult['changedServices']>();
  for (const c of changed.filter((x) => placed.has(x.id))) byEnv.set(c.environmentId, [...(byEnv.get(c.environmentId) ?? []), c]);
  const plans: string[] = [];
  for (const [environmentId, items] of byEnv) {
    const plan = await requestConvergence(s, {
      environmentId, name, trigger: 'manifest', createdBy: name,
      items: items.map((i) => ({ serviceId: i.id, imageTag: i.imageTag })),
    });
    if (plan) plans.push(plan.id);
  }
  return plans;
}

/** The containers of deployments a manifest apply deleted go away through a plan of remove steps, per environment. */
export async function removeContainers(s: Pick<Services, 'events' | 'logger' | 'plans' | 'servers' | 'transaction'>, removed: ApplyResult['removedDeployments'], name: string): Promise<string[]> {
  const byEnv = new Map<string, DeploymentRow[]>();
  for (const d of removed as DeploymentRow[]) byEnv.set(d.environmentId, [...(byEnv.get(d.environmentId) ?? []), d]);
  const plans: string[] = [];
  for (const [environmentId, list] of byEnv) {
    const plan = await requestRemoval(s, environmentId, list, `prune ${list.map((d) => d.containerName).join(', ')} (${name})`);
    if (plan) plans.push(plan.id);
  }
  return plans;
}
