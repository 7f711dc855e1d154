// One deployment, looked at again: desired (store) vs observed (server), planned, and its
// conditions written with the generation they were computed against. The per-deployment
// reconcile key and the drift routes call it; it changes nothing on the server.
import { refreshServicesConditions } from '../service/record-rollout.js';
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { getCondition, REASONS, sameConditions, type Condition } from '../../controller/model/conditions.js';
import { loadDesired, type DesiredOptions, type DesiredReads } from './load-desired.js';
import { observeDeployment } from './observe.js';
import { plan, type ContainerPlan } from './plan.js';
import { deploymentConditions, type Observation } from './status.js';
import type { DesiredContainer } from '../../controller/model/desired-container.js';
import type { ComposeDecision } from '../../controller/deploy/compose/compose-path-rules.js';
import { composeFilesOf } from '../../controller/deploy/compose/generate-compose.js';
import type { ObservedContainer } from './observe.js';

export interface DeploymentLook {
  deployment: DeploymentRow;
  observation: Observation;
}

/** What a look at a deployment reads: its desired container, and its server. */
export type LookServices = DesiredReads & Pick<Services, 'environments' | 'hosts'>;

/** Desired, observed and the plan between them for one deployment; never throws for a host error. */
export async function lookAt(s: LookServices, d: DeploymentRow, o: DesiredOptions = {}): Promise<DeploymentLook> {
  let loaded;
  try {
    loaded = await loadDesired(s, d, o);
  } catch (e) {
    // the store cannot render the spec (an unresolved placeholder): nothing can be compared
    return { deployment: d, observation: { kind: 'unreachable', message: messageOf(e), serverName: d.serverId } };
  }
  if (!loaded) return { deployment: d, observation: { kind: 'not-deployed' } };
  const desired = withComposeFileHash(loaded.desired, loaded.decision, loaded.service.composeTemplate);
  try {
    const observed = await observeDeployment(s, desired, composeFileOf(loaded.decision), o.rows?.server);
    return { deployment: d, observation: { kind: 'observed', desired, observed, plan: plan(desired, observed) } };
  } catch (e) {
    return { deployment: d, observation: { kind: 'unreachable', message: messageOf(e), serverName: desired.serverName } };
  }
}

const composeFileOf = (decision: ComposeDecision) => (decision.mode === 'compose-generated' ? decision.path : null);

/** In compose-generated mode the file on disk is part of what must match. */
function withComposeFileHash(desired: DesiredContainer, decision: ComposeDecision, template: string | null): DesiredContainer {
  if (decision.mode !== 'compose-generated') return desired;
  return { ...desired, composeFileHash: composeFilesOf(desired, decision.path, template).compose.sha256 };
}

export interface Recorded extends DeploymentLook {
  conditions: Condition[];
  /** The conditions said something new (callers publish events only then). */
  changed: boolean;
}

/** Observes one deployment and writes its conditions and observedGeneration. */
export async function observeAndRecord(s: LookServices & Pick<Services, 'events' | 'plans'>, deploymentId: string): Promise<Recorded | null> {
  const d = await s.deployments.findById(deploymentId);
  if (!d) return null;
  return record(s, await lookAt(s, d, { look: true }));
}

export async function record(s: Pick<Services, 'deployments' | 'events' | 'plans' | 'services'>, look: DeploymentLook): Promise<Recorded> {
  return (await recordMany(s, [look]))[0]!;
}

/**
 * record() of many looks (a batch): the deployments whose conditions say something new or whose
 * observedGeneration is behind are written with one statement; the others not at all.
 */
export async function recordMany(s: Pick<Services, 'deployments' | 'events' | 'plans' | 'services'>, looks: DeploymentLook[]): Promise<Recorded[]> {
  const recorded = looks.map((look) => {
    const d = look.deployment;
    const conditions = deploymentConditions(d.conditions ?? [], look.observation, { generation: d.generation, failedGeneration: d.failedGeneration });
    return { ...look, conditions, changed: !sameConditions(d.conditions ?? [], conditions) };
  });
  const writes = recorded.filter((r) => r.changed || r.deployment.observedGeneration !== r.deployment.generation);
  await s.deployments.recordConditionsMany(writes.map((r) => ({ id: r.deployment.id, conditions: r.conditions, observedGeneration: r.deployment.generation })));
  for (const r of recorded) await announceCrashLoop(s, r.deployment, r.deployment.conditions ?? [], r.conditions, r.observation);
  // a service's status is its deployments' observed: it follows when one of theirs changed
  await refreshServicesConditions(s, [...new Set(writes.map((r) => r.deployment.serviceId))]);
  return recorded;
}

/** One event (a notification type) when Degraded turns to CrashLooping; nothing while it stays so. */
async function announceCrashLoop(s: Pick<Services, 'events'>, d: DeploymentRow, before: Condition[], after: Condition[], o: Observation) {
  const was = getCondition(before, 'Degraded');
  const now = getCondition(after, 'Degraded');
  if (now?.reason !== REASONS.CrashLooping || now.status !== 'True' || was?.reason === REASONS.CrashLooping) return;
  await s.events.publish('deployment.crash_looping', d.environmentId, {
    deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName, imageTag: d.imageTag,
    restartCount: o.kind === 'observed' ? o.observed.restartCount : null, message: now.message,
  });
}

export type { ContainerPlan, ObservedContainer };
