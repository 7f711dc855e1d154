// Level-based drift reconciler for one environment (key "drift/<envId>"). driftPolicy 'off' skips,
// 'warn' records a Drifted condition per deployment and emits drift.detected / drift.changed when
// it changes, 'heal' also starts a plan that redeploys the drifted deployments at their tag.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { driftOf, type DriftItem } from './drift.js';
import { requestConvergence } from '../entrance.js';

interface Condition { type: string; status: string; reason: string; message: string; lastTransitionTime: string }

export async function reconcileDrift(s: Services, environmentId: string): Promise<void> {
  const ops = await s.settings.get<{ driftPolicy: 'off' | 'warn' | 'heal' }>(environmentId, 'operations');
  if (ops.driftPolicy === 'off') return;
  const deployments = (await s.db('deployments').where({ environmentId }).whereNotNull('imageTag')) as DeploymentRow[];
  // a deployment a plan is working on is in motion, not drifted
  const busy = new Set((await s.db('plan_steps as st').join('deployment_plans as p', 'p.id', 'st.plan_id')
    .whereIn('p.status', ['pending', 'running', 'rolling_back']).where('p.environment_id', environmentId).pluck('st.deployment_id')) as string[]);
  const items = await driftOf(s, deployments.filter((d) => !busy.has(d.id)));
  for (const item of items) await recordCondition(s, environmentId, deployments.find((d) => d.id === item.deploymentId)!, item);
  if (ops.driftPolicy === 'heal') await heal(s, environmentId, items.filter((i) => i.drifted), deployments);
}

async function recordCondition(s: Services, environmentId: string, d: DeploymentRow, item: DriftItem) {
  if (item.drifted === null) return;
  const previous = ((d.conditions ?? []) as Condition[]).find((c) => c.type === 'Drifted');
  const status = item.drifted ? 'True' : 'False';
  const reason = item.drifted ? item.actions.map((a) => a.reason).join(',') : 'InSync';
  if (previous?.status === status && previous.reason === reason) return;
  const condition: Condition = {
    type: 'Drifted', status, reason, message: item.drifted ? item.actions.map((a) => a.message).join('; ') : 'matches the desired state',
    lastTransitionTime: new Date().toISOString(),
  };
  const conditions = [...((d.conditions ?? []) as Condition[]).filter((c) => c.type !== 'Drifted'), condition];
  await s.db('deployments').where({ id: d.id }).update({ conditions: JSON.stringify(conditions) });
  // a first look that finds nothing wrong is not news
  if (!previous && !item.drifted) return;
  const data = { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, drifted: item.drifted, reasons: item.actions.map((a) => a.reason) };
  await s.events.publish('drift.changed', environmentId, data);
  if (item.drifted) await s.events.publish('drift.detected', environmentId, data);
}

/**
 * Heal goes through the entrance like every request: one plan over the drifted deployments, at
 * the desired tag. A deployment whose current generation failed to roll out is left alone: heal
 * never retries a failed generation by itself (no flapping); a new request does.
 */
async function heal(s: Services, environmentId: string, drifted: DriftItem[], deployments: DeploymentRow[]) {
  // a rollout stops at its first failed step: the service's generation failed, not only that deployment's
  const failedServices = new Set(deployments.filter((d) => d.failedGeneration === d.generation).map((d) => d.serviceId));
  const retryable = drifted.filter((i) => !failedServices.has(i.serviceId));
  if (!retryable.length) return;
  const byService = new Map<string, DriftItem[]>();
  for (const i of retryable) byService.set(i.serviceId, [...(byService.get(i.serviceId) ?? []), i]);
  const items = [...byService].map(([serviceId, list]) => ({ serviceId, deploymentIds: list.map((i) => i.deploymentId) }));
  const plan = await requestConvergence(s, { environmentId, name: `heal drift of ${retryable.map((i) => i.containerName).join(', ')}`, items, trigger: 'drift-heal' });
  if (plan) s.logger.info('drift heal plan started', { planId: plan.id, deployments: retryable.length });
}

/** Worker: registers the reconciler and enqueues every environment each driftCheckSec. */
export async function startDriftWorker(s: Services): Promise<void> {
  s.queue.register('drift', async (envId) => { await reconcileDrift(s, envId); });
  s.scheduler.every('drift-check', s.config.scheduler.driftCheckSec, async () => {
    for (const { id } of await s.db('environments').select('id')) s.queue.add(`drift/${id}`);
  });
}
