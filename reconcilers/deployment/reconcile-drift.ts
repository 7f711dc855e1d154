// Drift of deployments: records what was observed (Drifted and Ready conditions, the observed
// status) and announces changes (drift.changed, drift.detected); with driftPolicy 'heal' it asks
// for a redeploy of what drifted. reconcile.ts runs this per deployment (Docker events, resync);
// reconcileDrift checks a whole environment at once.
import type { Trx } from '../../controller/store/knex.js';
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { statusFromContainer } from '../../controller/servers/container-states.js';
import { REASONS, setCondition, type Condition } from '../conditions.js';
import { driftOf, type DriftItem } from './drift.js';

export type DriftPolicy = 'off' | 'warn' | 'heal';

/** After a heal, the same deployment is not healed again before this: a crash loop is not healed in a busy loop. */
export const HEAL_COOLDOWN_MS = 10_000;

export async function driftPolicyOf(s: Services, environmentId: string): Promise<DriftPolicy> {
  return (await s.settings.get<{ driftPolicy: DriftPolicy }>(environmentId, 'operations')).driftPolicy;
}

/** Checks every deployed deployment of the environment; with heal, one plan heals all that drifted. */
export async function reconcileDrift(s: Services, environmentId: string): Promise<void> {
  const policy = await driftPolicyOf(s, environmentId);
  if (policy === 'off') return;
  const ids = await s.deployments.listDeployedIds(environmentId);
  // a deployment a plan is working on is in motion, not drifted
  const inMotion = await s.plans.steps.deploymentsInMotion(ids);
  const deployments = (await Promise.all(ids.filter((id) => !inMotion.has(id)).map((id) => s.deployments.findById(id))))
    .filter((d): d is DeploymentRow => !!d);
  const items = await driftOf(s, deployments);
  for (const item of items) await recordDrift(s, item);
  if (policy !== 'heal') return;
  const healable: DriftItem[] = [];
  for (const item of items) if (item.drifted && (await healDecision(s, deployments.find((d) => d.id === item.deploymentId)!)).heal) healable.push(item);
  await heal(s, environmentId, healable);
}

/**
 * Stores the observation of one deployment (Drifted, Ready, status) with its row locked and
 * publishes drift.changed (and drift.detected) when Drifted changed. A server that could not be
 * asked leaves Drifted as it was and makes Ready Unknown.
 */
export async function recordDrift(s: Services, item: DriftItem): Promise<void> {
  const [server, service] = await Promise.all([s.servers.findById(item.serverId), s.services.findById(item.serviceId)]);
  const where = `${item.containerName} (service ${service?.name ?? item.serviceId}) on server ${server?.name ?? item.serverId}`;
  await s.deployments.withLocked(item.deploymentId, async (d, trx) => {
    const before = (d.conditions ?? []) as Condition[];
    if (item.drifted === null) {
      const conditions = setCondition(before, { type: 'Ready', status: 'Unknown', reason: REASONS.ServerUnreachable, message: `${where}: ${item.error ?? 'server unreachable'}` });
      await s.deployments.recordObserved(d.id, { conditions, status: 'unknown' }, trx);
      return;
    }
    const reasons = item.actions.map((a) => a.reason as string);
    const drifted = setCondition(before, item.drifted
      ? { type: 'Drifted', status: 'True', reason: reasons.join(','), message: item.actions.map((a) => a.message).join('; ') }
      : { type: 'Drifted', status: 'False', reason: REASONS.InSync, message: `${where} matches the desired state` });
    const stopped = reasons.find((r) => r === REASONS.ContainerMissing || r === REASONS.ContainerStopped);
    const conditions = setCondition(drifted, stopped
      ? { type: 'Ready', status: 'False', reason: stopped, message: `${where} is ${stopped === REASONS.ContainerMissing ? 'missing' : 'not running'}` }
      : { type: 'Ready', status: 'True', reason: REASONS.Running, message: `${where} is running` });
    await s.deployments.recordObserved(d.id, { conditions, status: statusFromContainer(stopped ? null : 'running', d.status) }, trx);
    await announce(s, d, before, item, trx);
  });
}

async function announce(s: Services, d: DeploymentRow, before: Condition[], item: DriftItem, trx: Trx) {
  const previous = before.find((c) => c.type === 'Drifted');
  const status = item.drifted ? 'True' : 'False';
  const reason = item.drifted ? item.actions.map((a) => a.reason).join(',') : REASONS.InSync;
  if (previous?.status === status && previous.reason === reason) return;
  // a first look that finds nothing wrong is not news
  if (!previous && !item.drifted) return;
  const data = { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, drifted: !!item.drifted, reasons: item.actions.map((a) => a.reason) };
  await s.events.publish('drift.changed', d.environmentId, data, trx);
  if (item.drifted) await s.events.publish('drift.detected', d.environmentId, data, trx);
}

/**
 * Whether a drifted deployment may be healed now. Not when its current generation failed to
 * deploy (the same request would fail again), nor when the last heal of it failed (a new deploy
 * clears that), nor within HEAL_COOLDOWN_MS of its last heal (then: look again after `retryInMs`).
 */
export async function healDecision(s: Services, d: DeploymentRow): Promise<{ heal: boolean; retryInMs?: number }> {
  const failedGeneration = (d as DeploymentRow & { failedGeneration?: number | null }).failedGeneration;
  if (failedGeneration != null && failedGeneration === d.generation) return { heal: false };
  const last = await s.plans.steps.lastPlanOf(d.id);
  if (last?.trigger !== 'drift-heal') return { heal: true };
  if (last.status !== 'succeeded') return { heal: false };
  const since = Date.now() - (last.finishedAt ? new Date(last.finishedAt).getTime() : 0);
  return since >= HEAL_COOLDOWN_MS ? { heal: true } : { heal: false, retryInMs: HEAL_COOLDOWN_MS - since };
}

export async function heal(s: Services, environmentId: string, drifted: DriftItem[]) {
  if (!drifted.length) return;
  const byService = new Map<string, DriftItem[]>();
  for (const i of drifted) byService.set(i.serviceId, [...(byService.get(i.serviceId) ?? []), i]);
  const items = [...byService].map(([serviceId, list]) => ({ serviceId, imageTag: list[0].imageTag, deploymentIds: list.map((i) => i.deploymentId) }));
  const plan = await s.plans.createPlan({ environmentId, name: `heal drift of ${drifted.map((i) => i.containerName).join(', ')}`, items, trigger: 'drift-heal' });
  await s.plans.execute(plan.id);
  s.logger.info('drift heal plan started', { planId: plan.id, deployments: drifted.length });
}
