// A deployment's conditions, recomputed from one observation (pure): Ready, Drifted, and Degraded
// cleared as soon as the container matches the desired spec again. A Degraded written for a
// failed rollout stays while that generation is still the desired one (heal must not retry it).
import { REASONS, setCondition, type Condition } from '../../controller/model/conditions.js';
import type { DesiredContainer } from '../../controller/model/desired-container.js';
import type { ObservedContainer } from './observe.js';
import type { ContainerPlan } from './plan.js';

export type Observation =
  | { kind: 'observed'; desired: DesiredContainer; observed: ObservedContainer; plan: ContainerPlan }
  /** Nothing is desired yet (never deployed). */
  | { kind: 'not-deployed' }
  /** The server could not be asked. */
  | { kind: 'unreachable'; message: string; serverName: string };

export interface StatusFacts {
  generation: number;
  failedGeneration: number | null;
}

function readyOf(o: Extract<Observation, { kind: 'observed' }>): Omit<Condition, 'lastTransitionTime' | 'type'> {
  const { desired: d, observed: c, plan } = o;
  const name = `container ${d.containerName} on server ${d.serverName}`;
  if (plan.action === 'conflict') return { status: 'False', reason: REASONS.NameConflict, message: plan.differences[0].message };
  if (!c.exists) return { status: 'False', reason: REASONS.ContainerMissing, message: `${name} does not exist` };
  if (!c.running) return { status: 'False', reason: REASONS.ContainerStopped, message: `${name} is ${c.state}` };
  if (c.health && c.health !== 'healthy') return { status: 'False', reason: REASONS.Unhealthy, message: `${name} is ${c.health}` };
  if (plan.action !== 'none') {
    return { status: 'False', reason: REASONS.SpecMismatch, message: `${name} differs from the desired spec: ${plan.differences.map((x) => x.field).join(', ')}` };
  }
  if (plan.adopted) {
    return { status: 'True', reason: REASONS.Adopted, message: `${name} runs ${d.imageTag}; adopted as it runs (container ${c.id!.slice(0, 12)}, started outside Stevedore, without its labels): the next rollout recreates it under Stevedore's labels` };
  }
  return c.health
    ? { status: 'True', reason: REASONS.Healthy, message: `${name} runs ${d.imageTag} and is healthy` }
    : { status: 'True', reason: REASONS.Running, message: `${name} runs ${d.imageTag}` };
}

/** Restarts since the deploy from which a container that keeps restarting is crash-looping. */
export const CRASH_LOOP_RESTARTS = 3;
/** A crash loop is over once the container has stayed up this long since its last start. */
export const CRASH_LOOP_QUIET_MS = 5 * 60_000;

/** The container restarted CRASH_LOOP_RESTARTS times since it was deployed and is still restarting. */
export function crashLoopOf(c: ObservedContainer, now: Date): string | null {
  if (!c.exists || c.restartCount < CRASH_LOOP_RESTARTS) return null;
  const recent = c.state === 'restarting' || (c.startedAt !== null && now.getTime() - Date.parse(c.startedAt) < CRASH_LOOP_QUIET_MS);
  return recent ? `restarted ${c.restartCount} times since it was deployed` : null;
}

export function deploymentConditions(previous: readonly Condition[], o: Observation, f: StatusFacts, now = new Date()): Condition[] {
  let out = [...previous];
  if (o.kind === 'unreachable') {
    const message = `server ${o.serverName} could not be asked: ${o.message}`;
    out = setCondition(out, { type: 'Ready', status: 'Unknown', reason: REASONS.ServerUnreachable, message }, now);
    return setCondition(out, { type: 'Drifted', status: 'Unknown', reason: REASONS.ServerUnreachable, message }, now);
  }
  if (o.kind === 'not-deployed') {
    out = setCondition(out, { type: 'Ready', status: 'False', reason: REASONS.NotDeployed, message: 'never deployed' }, now);
    return setCondition(out, { type: 'Drifted', status: 'False', reason: REASONS.InSync, message: 'nothing is desired yet' }, now);
  }
  out = setCondition(out, { type: 'Ready', ...readyOf(o) }, now);
  const diffs = o.plan.differences;
  out = setCondition(out, diffs.length
    ? { type: 'Drifted', status: 'True', reason: diffs[0].reason, message: diffs.map((x) => x.message).join('; ') }
    : { type: 'Drifted', status: 'False', reason: REASONS.InSync, message: 'matches the desired spec' }, now);
  const failedRollout = f.failedGeneration !== null && f.failedGeneration === f.generation;
  const crashLoop = crashLoopOf(o.observed, now);
  if (o.plan.action === 'conflict') {
    out = setCondition(out, { type: 'Degraded', status: 'True', reason: REASONS.NameConflict, message: diffs[0].message }, now);
  } else if (crashLoop) {
    const message = `container ${o.desired.containerName} on server ${o.desired.serverName} ${crashLoop}`;
    out = setCondition(out, { type: 'Degraded', status: 'True', reason: REASONS.CrashLooping, message }, now);
  } else if (o.plan.action === 'none' && !failedRollout) {
    out = setCondition(out, { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: 'the container matches the desired spec' }, now);
  }
  return out;
}
