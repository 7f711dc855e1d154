// Drift of deployments: plan(desired, observed) per deployment, never applied here. The report is
// what the drift routes show; looking also records each deployment's conditions, so status and
// drift always say the same thing.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { getCondition, type Condition } from '../../controller/model/conditions.js';
import { lookAt, record, type DeploymentLook } from './observe-and-record.js';
import { deploymentConditions } from './status.js';
import type { DriftReason, PlanAction } from './plan.js';

export interface DriftAction {
  type: 'redeploy';
  deploymentId: string;
  field: string;
  reason: DriftReason;
  message: string;
}

export interface DriftItem {
  deploymentId: string;
  serviceId: string;
  serverId: string;
  containerName: string;
  /** The tag the deployment last converged to. */
  imageTag: string | null;
  /** The tag the service desires, and the tag the container runs as Docker reports it (null: none, or unknown). */
  desiredImageTag: string | null;
  runningImageTag: string | null;
  /** The deployment's Degraded condition when True: a rollout did not reach the desired state. */
  degraded: { reason: string; message: string } | null;
  /** null: the server could not be asked. */
  drifted: boolean | null;
  action: PlanAction | null;
  actions: DriftAction[];
  error?: string;
}

/** Looks at each deployment, records its conditions and says what drifted (a batch: reconcile.ts). */
export async function driftOf(s: Services, deployments: DeploymentRow[]): Promise<DriftItem[]> {
  return Promise.all(deployments.map(async (d): Promise<DriftItem> => {
    const look = await lookAt(s, d, { look: true });
    return driftItemOf(look, (await record(s, look)).conditions);
  }));
}

/**
 * A drift report as the API reads it: the same looks, but nothing recorded. Recording belongs to
 * the looks that also announce (reconcile-drift.ts observeDrift, the deployment reconciler): a
 * report that wrote Drifted without the news would leave the next look nothing new to announce.
 */
export async function reportDriftOf(s: Services, deployments: DeploymentRow[]): Promise<DriftItem[]> {
  return Promise.all(deployments.map(async (d): Promise<DriftItem> => {
    const look = await lookAt(s, d, { look: true });
    return driftItemOf(look, deploymentConditions(d.conditions ?? [], look.observation, { generation: d.generation, failedGeneration: d.failedGeneration }));
  }));
}

/** What a look says about drift, with the conditions recorded from it. */
export function driftItemOf(look: DeploymentLook, conditions: Condition[]): DriftItem {
  const d = look.deployment;
  const bad = getCondition(conditions, 'Degraded');
  const base = {
    deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, imageTag: d.imageTag,
    degraded: bad?.status === 'True' ? { reason: bad.reason, message: bad.message } : null,
  };
  const tags = (desired: string | null, running: string | null) => ({ desiredImageTag: desired, runningImageTag: running });
  const ob = look.observation;
  if (ob.kind === 'not-deployed') return { ...base, ...tags(null, null), drifted: false, action: null, actions: [] };
  if (ob.kind === 'unreachable') return { ...base, ...tags(d.imageTag, null), drifted: null, action: null, actions: [], error: ob.message };
  return {
    ...base, ...tags(ob.desired.imageTag, ob.plan.runningTag), drifted: ob.plan.action !== 'none', action: ob.plan.action,
    actions: ob.plan.differences.map((x) => ({ type: 'redeploy' as const, deploymentId: d.id, ...x })),
  };
}

export function driftReport(items: DriftItem[]) {
  return {
    checkedAt: new Date().toISOString(),
    drifted: items.filter((i) => i.drifted).length,
    unreachable: items.filter((i) => i.drifted === null).length,
    degraded: items.filter((i) => i.degraded).length,
    items,
  };
}
