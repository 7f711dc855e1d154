import type { GitSourceRow } from '../../store/repositories/git-sources.js';
import { REASONS, setCondition, type Condition } from '../../model/conditions.js';

export type SyncState = 'Synced' | 'OutOfSync' | 'Syncing' | 'Failed';

type LeaseFields = Pick<GitSourceRow, 'leaseUntil'>;

/** Whether a reconcile pass holds the source now: a lease whose holder died ran out by itself. */
export const syncing = (row: LeaseFields, now = Date.now()) => !!row.leaseUntil && new Date(row.leaseUntil).getTime() > now;

/** A sync was asked for (a push, the API, a save) that no reconcile pass has ended at yet. */
export const syncPending = (row: Pick<GitSourceRow, 'generation' | 'observedGeneration'>) => row.observedGeneration !== row.generation;

/**
 * The state of a source, as Argo CD shows an application's (pure): Syncing while a pass holds its
 * lease; Failed when the last attempt failed (the last good commit stays applied); OutOfSync when
 * nothing was applied yet, a sync was asked for since, or a newer commit was fetched than applied;
 * else Synced.
 */
export function syncStateOf(row: Pick<GitSourceRow, 'leaseUntil' | 'lastAttempt' | 'appliedRevision' | 'appliedGeneration' | 'generation' | 'fetchedCommit'>, now = Date.now()): SyncState {
  if (syncing(row, now)) return 'Syncing';
  if (row.lastAttempt && !row.lastAttempt.ok) return 'Failed';
  if (!row.appliedRevision || row.appliedGeneration !== row.generation) return 'OutOfSync';
  if (row.fetchedCommit && row.fetchedCommit !== row.appliedRevision.commit) return 'OutOfSync';
  return 'Synced';
}

/** Whether the source is due a reconcile pass: a sync asked for, or its poll interval passed since its last fetch. */
export function syncDue(row: Pick<GitSourceRow, 'pollIntervalSec' | 'lastFetchAt' | 'generation' | 'observedGeneration'>, now = Date.now()): boolean {
  if (syncPending(row)) return true;
  if (row.pollIntervalSec <= 0) return false;
  return !row.lastFetchAt || now - new Date(row.lastFetchAt).getTime() >= row.pollIntervalSec * 1000;
}

/** What a reconcile pass found, as the conditions say it. */
export type PassResult =
  | { ok: true; commit: string; message: string }
  | { ok: false; reason: typeof REASONS.FetchFailed | typeof REASONS.ManifestsInvalid | typeof REASONS.ApplyFailed; error: string };

/** The conditions a pass writes (pure): Ready and Degraded from its result; Progressing idle (the pass ended). */
export function passConditions(before: readonly Condition[], result: PassResult, now = new Date()): Condition[] {
  let list = setCondition(before, result.ok
    ? { type: 'Ready', status: 'True', reason: REASONS.Synced, message: result.message }
    : { type: 'Ready', status: 'False', reason: REASONS.SyncFailed, message: result.error }, now);
  list = setCondition(list, { type: 'Progressing', status: 'False', reason: REASONS.Idle, message: 'no sync running' }, now);
  list = setCondition(list, result.ok
    ? { type: 'Degraded', status: 'False', reason: REASONS.AsDesired, message: 'the last sync succeeded' }
    : { type: 'Degraded', status: 'True', reason: result.reason, message: result.error }, now);
  return list;
}

/**
 * The conditions as read (pure): the last pass's, with Progressing as it is now. A live lease is
 * a pass running (observed: its holder renews it); a generation no pass ended at is a sync asked
 * for and waiting for its pass.
 */
export function conditionsNow(row: Pick<GitSourceRow, 'conditions' | 'leaseUntil' | 'generation' | 'observedGeneration' | 'requestedAt'>, now = Date.now()): Condition[] {
  const list = row.conditions ?? [];
  const at = new Date(now);
  if (syncing(row, now)) return setCondition(list, { type: 'Progressing', status: 'True', reason: REASONS.Syncing, message: 'a sync is fetching and applying the source' }, at);
  if (syncPending(row)) {
    const since = row.requestedAt ? ` (asked for at ${new Date(row.requestedAt).toISOString()})` : '';
    return setCondition(list, { type: 'Progressing', status: 'True', reason: REASONS.SyncRequested, message: `a sync is waiting for its turn${since}` }, at);
  }
  return list;
}
