// A service's restart policy, written as `docker run --restart` and compose's `restart:` take it:
// no, always, unless-stopped (the default) or on-failure[:N] (at most N restarts after the
// container exits non-zero; on-failure alone retries without limit). Pure; the one place that
// turns it into Docker's HostConfig.RestartPolicy and reads it back from an inspect.

export const RESTART_POLICIES = ['no', 'always', 'unless-stopped', 'on-failure'] as const;
export const DEFAULT_RESTART_POLICY = 'unless-stopped';
/** on-failure takes a retry count from 1 to 9999 (on-failure:0 is on-failure: Docker reads 0 as no limit). */
export const RESTART_POLICY_PATTERN = '^(no|always|unless-stopped|on-failure(:[1-9][0-9]{0,3})?)$';

/** no | always | unless-stopped | on-failure | on-failure:N */
export type RestartPolicy = string;

export interface DockerRestartPolicy { Name: string; MaximumRetryCount?: number }

/** The policy as Docker's API takes it (HostConfig.RestartPolicy). */
export function dockerRestartPolicy(policy: RestartPolicy): DockerRestartPolicy {
  const [name, count] = policy.split(':');
  return count === undefined ? { Name: name } : { Name: name, MaximumRetryCount: Number(count) };
}

/** The policy of an inspected container in the written form ("" and a missing one are "no"). */
export function restartPolicyOf(p: { Name?: string; MaximumRetryCount?: number } | null | undefined): RestartPolicy {
  const name = p?.Name || 'no';
  return name === 'on-failure' && p?.MaximumRetryCount ? `on-failure:${p.MaximumRetryCount}` : name;
}
