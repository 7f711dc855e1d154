import type { Services } from '../controller/services.js';
import { removeDeploymentContainer } from './deployment/effects/deploy-deployment.js';
import { withServerLock } from '../controller/deploy/server-lock.js';
import type { DeploymentRow } from '../controller/store/repositories/deployments.js';
import type { ApplyResult } from '../controller/manifests/apply.js';
import { requestConvergence, type EntranceServices } from './entrance.js';

/**
 * Hands services whose template or placements a manifest changed to the entrance: per
 * environment, one plan (in dependency order, started at once) over the deployments whose
 * container differs from the desired one. A re-apply that changes nothing running creates no
 * plan. Services without deployments are skipped (nothing to run). Returns the plan ids.
 */
export async function startPlans(s: EntranceServices, changed: ApplyResult['changedServices'], revision: string): Promise<string[]> {
  const placed = new Set((await s.deployments.listByServices(changed.map((c) => c.id))).map((d) => d.serviceId));
  const byEnv = new Map<string, ApplyResult['changedServices']>();
  for (const c of changed.filter((x) => placed.has(x.id))) byEnv.set(c.environmentId, [...(byEnv.get(c.environmentId) ?? []), c]);
  const plans: string[] = [];
  for (const [environmentId, items] of byEnv) {
    const plan = await requestConvergence(s, {
      environmentId, name: `manifests ${revision.replace(/^sha256:/, '').slice(0, 12)}`, trigger: 'manifest',
      items: items.map((i) => ({ serviceId: i.id, imageTag: i.imageTag })),
    });
    if (plan) plans.push(plan.id);
  }
  return plans;
}

/** Removes the containers of deployments a manifest apply deleted (one at a time per server). */
export async function removeContainers(s: Pick<Services, 'hosts' | 'locks' | 'logger'>, removed: ApplyResult['removedDeployments']): Promise<number> {
  let n = 0;
  for (const d of removed as DeploymentRow[]) {
    try {
      await withServerLock(s.locks, d.serverId, () => removeDeploymentContainer(s, d, async () => undefined));
      n++;
    } catch (e) {
      s.logger.warn('manifests: could not remove a pruned container', { server: d.serverId, container: d.containerName, error: (e as Error).message });
    }
  }
  return n;
}
