// Status conditions, as Kubernetes controllers keep them: what was observed, recomputed on every
// reconcile, so a condition clears as soon as reality matches again. Pure functions only.

export type ConditionType = 'Ready' | 'Progressing' | 'Degraded' | 'Drifted' | 'UpdateAvailable';
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  /** One of REASONS: machine-readable, CamelCase. */
  reason: string;
  /** For people: names servers and services by name. */
  message: string;
  /** When `status` last changed (not when the condition was last written). */
  lastTransitionTime: string;
}

/** Every reason a reconciler may report. Add here, never inline a string. */
export const REASONS = {
  // Ready
  Running: 'Running',
  Healthy: 'Healthy',
  NotDeployed: 'NotDeployed',
  ContainerMissing: 'ContainerMissing',
  ContainerStopped: 'ContainerStopped',
  Unhealthy: 'Unhealthy',
  ServerUnreachable: 'ServerUnreachable',
  SpecMismatch: 'SpecMismatch',
  /** The container was started outside Stevedore and adopted as it runs (no ownership labels until a rollout recreates it). */
  Adopted: 'Adopted',
  /** A deployment's container has not been looked at since it was deployed. */
  NotObserved: 'NotObserved',
  // Progressing
  PlanRunning: 'PlanRunning',
  Idle: 'Idle',
  // Degraded
  PullFailed: 'PullFailed',
  HealthCheckFailed: 'HealthCheckFailed',
  NameConflict: 'NameConflict',
  DeployFailed: 'DeployFailed',
  RolledBack: 'RolledBack',
  /** The desired revision failed; the service runs its last good revision, if it has one. */
  RevisionFailed: 'RevisionFailed',
  /** The container keeps restarting since it was deployed (its restart count rises). */
  CrashLooping: 'CrashLooping',
  /** Monitoring checks of the server or its containers are down (servers). */
  ChecksFailing: 'ChecksFailing',
  AsDesired: 'AsDesired',
  // Drifted
  InSync: 'InSync',
  ImageChanged: 'ImageChanged',
  ImageIdChanged: 'ImageIdChanged',
  SpecChanged: 'SpecChanged',
  EnvChanged: 'EnvChanged',
  ComposeFileChanged: 'ComposeFileChanged',
  ConfigFileChanged: 'ConfigFileChanged',
  /** A start-first deploy stopped half way: its new container is still there under its temporary name. */
  SwitchInterrupted: 'SwitchInterrupted',
  // config files / servers
  Synced: 'Synced',
  SyncFailed: 'SyncFailed',
  // Git sources (Progressing: a pass holds the lease, or a sync was asked for; Degraded: what failed)
  Syncing: 'Syncing',
  SyncRequested: 'SyncRequested',
  FetchFailed: 'FetchFailed',
  /** The commit's manifests do not apply (invalid, refused, or a SOPS file that cannot be decrypted): nothing of it was applied. */
  ManifestsInvalid: 'ManifestsInvalid',
  ApplyFailed: 'ApplyFailed',
  // previews of a Git source (docs/git-sources.md#previews): what a preview is waiting for, or why it failed
  PreviewReady: 'PreviewReady',
  RollingOut: 'RollingOut',
  RolloutFailed: 'RolloutFailed',
  NoServers: 'NoServers',
  TearingDown: 'TearingDown',
  Reachable: 'Reachable',
  ServerChecksPassing: 'ChecksPassing',
  // UpdateAvailable (images)
  NewerTag: 'NewerTag',
  TagRePushed: 'TagRePushed',
  UpToDate: 'UpToDate',
  CheckFailed: 'CheckFailed',
} as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

/**
 * Returns the list with `next` set: lastTransitionTime moves only when the status changes, so a
 * reconcile that observes the same thing again changes nothing but the message.
 */
export function setCondition(list: readonly Condition[], next: Omit<Condition, 'lastTransitionTime'>, now = new Date()): Condition[] {
  const prev = list.find((c) => c.type === next.type);
  const lastTransitionTime = prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString();
  return [...list.filter((c) => c.type !== next.type), { ...next, lastTransitionTime }];
}

export function getCondition(list: readonly Condition[] | null | undefined, type: ConditionType): Condition | undefined {
  return (list ?? []).find((c) => c.type === type);
}

export const isTrue = (list: readonly Condition[] | null | undefined, type: ConditionType) => getCondition(list, type)?.status === 'True';

/** True when two condition lists say the same thing (ignoring order): used to skip no-op writes and events. */
export function sameConditions(a: readonly Condition[], b: readonly Condition[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x) => {
    const y = b.find((c) => c.type === x.type);
    return !!y && y.status === x.status && y.reason === x.reason && y.message === x.message;
  });
}
