// What a rollout's outcome means for status, as pure functions: a failed step makes the deployment
// Degraded with a reason and a message naming the service and the server; a success (or an
// observation matching the desired state) clears it; a service is Degraded while any of its
// deployments is.
import { REASONS, setCondition, type Condition, type Reason } from '../../controller/model/conditions.js';
import { fallbackNote } from './fallback.js';

export interface Where { service: string; server: string }

/** The reason a step failed, from its error (the effects report causes as text). */
export function failureReason(error: string): Reason {
  if (/^pull of .* failed|manifest unknown|pull access denied|repository does not exist/i.test(error)) return REASONS.PullFailed;
  if (/unhealthy|did not become healthy|exited with code/i.test(error)) return REASONS.HealthCheckFailed;
  if (/CONFLICT|did not create|another (environment|owner)|already (runs|in use)|is owned by/i.test(error)) return REASONS.NameConflict;
  return REASONS.DeployFailed;
}

const PHRASE: Partial<Record<Reason, string>> = {
  [REASONS.PullFailed]: 'pull failed', [REASONS.HealthCheckFailed]: 'health check failed', [REASONS.NameConflict]: 'name conflict',
};

/** "pull failed on s1 (service web): manifest unknown for registry/web:v77". */
export function failureMessage(reason: Reason, error: string, where: Where): string {
  const pull = /^pull of (\S+) failed: (.*)$/s.exec(error);
  const detail = pull ? `${pull[2]} for ${pull[1]}` : error;
  return `${PHRASE[reason] ?? 'deploy failed'} on ${where.server} (service ${where.service}): ${detail}`.slice(0, 2000);
}

export function degraded(list: readonly Condition[], error: string, where: Where, now = new Date()): Condition[] {
  const reason = failureReason(error);
  return setCondition(list, { type: 'Degraded', status: 'True', reason, message: failureMessage(reason, error, where) }, now);
}

export function rolledBack(list: readonly Condition[], cause: string, where: Where, runningTag: string | null, now = new Date()): Condition[] {
  const back = runningTag ? `rolled back to ${runningTag}` : 'removed (it had no previous version)';
  return setCondition(list, { type: 'Degraded', status: 'True', reason: REASONS.RolledBack, message: `${where.service} on ${where.server} ${back}: ${cause}`.slice(0, 2000) }, now);
}

export function notDegraded(list: readonly Condition[], where: Where, now = new Date()): Condition[] {
  return setCondition(list, { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: `${where.service} on ${where.server} runs the desired state` }, now);
}

/** What a service's status is computed from: its revisions, its deployments and a plan in motion. */
export interface ServiceObservation {
  name: string;
  desiredRevision: number | null;
  currentRevision: number | null;
  failedRevision: number | null;
  failedReason: string | null;
  deployments: Array<{ containerName: string; imageTag: string | null; revision: number | null; conditions: unknown }>;
  /** A plan pending or running for the service. */
  activePlan: { id: string; name: string } | null;
}

const conditionOf = (d: { conditions: unknown }, type: string) => ((d.conditions ?? []) as Condition[]).find((c) => c.type === type);

/**
 * A service's Ready, Progressing and Degraded, from what its deployments were observed to run.
 * Ready: every deployment was deployed, observed Ready, not drifted, and runs the desired
 * revision. Progressing: a plan is pending or running for it. Degraded: its desired revision
 * failed (naming the last good one it runs instead), or a deployment is degraded.
 */
export function serviceConditions(list: readonly Condition[], o: ServiceObservation, now = new Date()): Condition[] {
  let out = setCondition(list, o.activePlan
    ? { type: 'Progressing', status: 'True', reason: REASONS.PlanRunning, message: `plan "${o.activePlan.name}" is rolling out ${o.name}` }
    : { type: 'Progressing', status: 'False', reason: REASONS.Idle, message: 'no plan is running for it' }, now);
  out = setCondition(out, degradedOf(o), now);
  return setCondition(out, readyOf(o), now);
}

function degradedOf(o: ServiceObservation): Omit<Condition, 'lastTransitionTime'> {
  const bad = o.deployments.map((d) => conditionOf(d, 'Degraded')).filter((c): c is Condition => c?.status === 'True');
  const reasons = [...new Set(bad.map((c) => c.reason))];
  const reason = reasons.length === 1 ? reasons[0] : REASONS.DeployFailed;
  const detail = bad.map((c) => c.message).join('; ');
  // the step's own words (server and service by name) when a deployment has them
  const note = fallbackNote({ ...o, failedReason: detail || o.failedReason });
  if (note) return { type: 'Degraded', status: 'True', reason: bad.length ? reason : REASONS.RevisionFailed, message: note.slice(0, 4000) };
  if (!bad.length) return { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: `every deployment of ${o.name} runs the desired state` };
  return { type: 'Degraded', status: 'True', reason, message: detail.slice(0, 4000) };
}

function readyOf(o: ServiceObservation): Omit<Condition, 'lastTransitionTime'> {
  const no = (reason: Reason, message: string) => ({ type: 'Ready' as const, status: 'False' as const, reason, message });
  if (!o.deployments.length) return no(REASONS.NotDeployed, `${o.name} has no deployments`);
  const never = o.deployments.filter((d) => !d.imageTag);
  if (never.length) return no(REASONS.NotDeployed, `never deployed: ${never.map((d) => d.containerName).join(', ')}`);
  if (o.failedRevision !== null && o.failedRevision === o.desiredRevision) return no(REASONS.RevisionFailed, `the desired revision r${o.failedRevision} failed`);
  const behind = o.desiredRevision === null ? [] : o.deployments.filter((d) => d.revision !== o.desiredRevision);
  if (behind.length) {
    return no(REASONS.SpecMismatch, behind.map((d) => `${d.containerName} runs ${d.revision === null ? 'no known revision' : `r${d.revision}`}`).join(', ')
      + `; desired r${o.desiredRevision}`);
  }
  const drifted = o.deployments.map((d) => conditionOf(d, 'Drifted')).filter((c): c is Condition => c?.status === 'True');
  if (drifted.length) return no(drifted[0].reason as Reason, drifted.map((c) => c.message).join('; ').slice(0, 4000));
  const ready = o.deployments.map((d) => conditionOf(d, 'Ready'));
  const notReady = ready.filter((c): c is Condition => c?.status === 'False');
  if (notReady.length) return no(notReady[0].reason as Reason, notReady.map((c) => c.message).join('; ').slice(0, 4000));
  if (ready.some((c) => c?.status !== 'True')) {
    return { type: 'Ready', status: 'Unknown', reason: REASONS.NotObserved, message: 'not every deployment has been observed yet' };
  }
  const at = o.desiredRevision === null ? '' : ` at r${o.desiredRevision}`;
  return { type: 'Ready', status: 'True', reason: REASONS.Running, message: `every deployment of ${o.name} runs${at}` };
}
