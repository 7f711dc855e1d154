// What a rollout's outcome means for status, as pure functions: a failed step makes the deployment
// Degraded with a reason and a message naming the service and the server; a success (or an
// observation matching the desired state) clears it; a service is Degraded while any of its
// deployments is.
import { REASONS, setCondition, type Condition, type Reason } from '../conditions.js';

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

/** The service's Degraded condition: True while any deployment's is, with their messages. */
export function serviceDegraded(list: readonly Condition[], serviceName: string, deployments: Array<{ conditions: unknown }>, now = new Date()): Condition[] {
  const bad = deployments.map((d) => ((d.conditions ?? []) as Condition[]).find((c) => c.type === 'Degraded' && c.status === 'True')).filter((c): c is Condition => !!c);
  if (!bad.length) {
    return setCondition(list, { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: `every deployment of ${serviceName} runs the desired state` }, now);
  }
  const reasons = [...new Set(bad.map((c) => c.reason))];
  return setCondition(list, {
    type: 'Degraded', status: 'True', reason: reasons.length === 1 ? reasons[0] : REASONS.DeployFailed,
    message: bad.map((c) => c.message).join('; ').slice(0, 4000),
  }, now);
}
