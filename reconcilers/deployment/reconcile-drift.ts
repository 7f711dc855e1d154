// Drift of deployments: after driftOf has observed and recorded conditions (observe-and-record.ts),
// stores the observed status and announces changes (drift.changed, drift.detected); with
// driftPolicy 'heal' it asks the entrance for a redeploy of what drifted. reconcile.ts runs this per
// deployment (Docker events, resync); reconcileDrift checks a whole environment at once.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { statusFromContainer } from '../../controller/servers/container-states.js';
import { REASONS, type Condition } from '../../controller/model/conditions.js';
import { driftOf, type DriftItem } from './drift.js';
import { requestConvergence } from '../entrance.js';
import { inFallback } from '../service/fallback.js';

export type DriftPolicy = 'off' | 'warn' | 'heal';

/** After a heal, the same deployment is not healed again before this: a crash loop is not healed in a busy loop. */
export const HEAL_COOLDOWN_MS = 10_000;

export async function driftPolicyOf(s: Pick<Services, 'settings'>, environmentId: string): Promise<DriftPolicy> {
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
  const items = await observeDrift(s, deployments);
  if (policy !== 'heal') return;
  const healable: DriftItem[] = [];
  for (const item of items) if (item.drifted && (await healDecision(s, deployments.find((d) => d.id === item.deploymentId)!)).heal) healable.push(item);
  await heal(s, environmentId, healable);
}

/**
 * Looks at the deployments (driftOf records their conditions) and announces what changed: every
 * look that records conditions goes through here, so a change of Drifted is published by the look
 * that saw it. A drift report read through the API is such a look: were it to record Drifted
 * without the news, the next look would find nothing new and the events would never come.
 */
export async function observeDrift(s: Services, deployments: DeploymentRow[]): Promise<DriftItem[]> {
  const items = await driftOf(s, deployments);
  for (const item of items) await recordDrift(s, item, deployments.find((d) => d.id === item.deploymentId)!);
  return items;
}

/**
 * After driftOf has recorded a deployment's conditions (observe-and-record.ts): stores the
 * observed status with the row locked and publishes drift.changed (and drift.detected) when
 * Drifted changed from what `seen` (the row the look started from) said. A server that could not
 * be asked changes nothing here. When neither the status nor Drifted changes (a resync of a
 * fleet in sync: nearly every look), nothing is written and no lock is taken.
 */
export async function recordDrift(s: Services, item: DriftItem, seen: Pick<DeploymentRow, 'status' | 'conditions'>): Promise<void> {
  const before = seen.conditions ?? [];
  if (item.drifted === null) {
    if (seen.status === 'unknown') return;
    await s.deployments.withLocked(item.deploymentId, (d, trx) => s.deployments.recordObserved(d.id, { status: 'unknown' }, trx).then(() => undefined));
    return;
  }
  const reasons = item.actions.map((a) => a.reason as string);
  // Docker's state as the look saw it: none (missing), not running, or running
  const running = reasons.includes(REASONS.ContainerMissing) ? null : reasons.includes(REASONS.ContainerStopped) ? 'exited' : 'running';
  if (statusFromContainer(running, seen.status) === seen.status && !driftNews(before, item)) return;
  await s.deployments.withLocked(item.deploymentId, async (d, trx) => {
    await s.deployments.recordObserved(d.id, { status: statusFromContainer(running, d.status) }, trx);
    const data = driftNews(before, item);
    if (!data) return;
    const event = { deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, ...data };
    await s.events.publish('drift.changed', d.environmentId, event, trx);
    if (item.drifted) await s.events.publish('drift.detected', d.environmentId, event, trx);
  });
}

/** What drift.changed says when Drifted changed from `before`; null when it is no news. */
function driftNews(before: Condition[], item: DriftItem): { drifted: boolean; reasons: string[] } | null {
  const previous = before.find((c) => c.type === 'Drifted');
  const status = item.drifted ? 'True' : 'False';
  const reason = item.drifted ? item.actions.map((a) => a.reason).join(',') : REASONS.InSync;
  if (previous?.status === status && previous.reason === reason) return null;
  // a first look that finds nothing wrong is not news
  if (!previous && !item.drifted) return null;
  return { drifted: !!item.drifted, reasons: item.actions.map((a) => a.reason) };
}

/**
 * Whether a drifted deployment may be healed now. Not when its service's current generation failed
 * to deploy (the same request would fail again) and no last good revision is there to restore, nor when the last heal of it failed (a new deploy
 * clears that), nor within HEAL_COOLDOWN_MS of its last heal (then: look again after `retryInMs`).
 */
export async function healDecision(s: Services, d: DeploymentRow): Promise<{ heal: boolean; retryInMs?: number }> {
  // a rollout stops at its first failed step: the service's generation failed, not only the
  // deployments whose step ran (the skipped ones differ from desired just the same)
  // unless the service falls back to its last good revision: that is what a heal restores
  const [siblings, service] = await Promise.all([s.deployments.listByService(d.serviceId), s.services.findById(d.serviceId)]);
  const failed = [d, ...siblings].some((x) => x.failedGeneration != null && x.failedGeneration === x.generation);
  if (failed && !(service && inFallback(service))) return { heal: false };
  const last = await s.plans.steps.lastPlanOf(d.id);
  if (last?.trigger !== 'drift-heal') return { heal: true };
  if (last.status !== 'succeeded') return { heal: false };
  const since = Date.now() - (last.finishedAt ? new Date(last.finishedAt).getTime() : 0);
  return since >= HEAL_COOLDOWN_MS ? { heal: true } : { heal: false, retryInMs: HEAL_COOLDOWN_MS - since };
}

/**
 * Heal goes through the entrance like every request: one plan over the drifted deployments, at
 * the desired tag. Callers filter with healDecision first: a failed generation is never retried
 * by a heal (no flapping); a new request does.
 */
export async function heal(s: Services, environmentId: string, retryable: DriftItem[]) {
  if (!retryable.length) return;
  const byService = new Map<string, DriftItem[]>();
  for (const i of retryable) byService.set(i.serviceId, [...(byService.get(i.serviceId) ?? []), i]);
  const items = [...byService].map(([serviceId, list]) => ({ serviceId, deploymentIds: list.map((i) => i.deploymentId) }));
  const plan = await requestConvergence(s, { environmentId, name: `heal drift of ${retryable.map((i) => i.containerName).join(', ')}`, items, trigger: 'drift-heal' });
  if (plan) s.logger.info('drift heal plan started', { planId: plan.id, deployments: retryable.length });
}
