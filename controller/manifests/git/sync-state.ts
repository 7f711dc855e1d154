import type { GitSourceRow } from '../../store/repositories/git-sources.js';

export type SyncState = 'Synced' | 'OutOfSync' | 'Syncing' | 'Failed';

/** A sync whose process died is not Syncing forever: past this, the row's claim counts as gone. */
export const SYNCING_STALE_MS = 10 * 60_000;

/**
 * The state of a source, as Argo CD shows an application's (pure): Syncing while a fetch or apply
 * runs; Failed when the last attempt failed (the last good commit stays applied); OutOfSync when
 * nothing was applied yet, the source changed since, or a newer commit was fetched than applied;
 * else Synced.
 */
export function syncStateOf(row: Pick<GitSourceRow, 'syncingSince' | 'lastAttempt' | 'appliedRevision' | 'appliedGeneration' | 'generation' | 'fetchedCommit'>, now = Date.now()): SyncState {
  if (row.syncingSince && now - new Date(row.syncingSince).getTime() < SYNCING_STALE_MS) return 'Syncing';
  if (row.lastAttempt && !row.lastAttempt.ok) return 'Failed';
  if (!row.appliedRevision || row.appliedGeneration !== row.generation) return 'OutOfSync';
  if (row.fetchedCommit && row.fetchedCommit !== row.appliedRevision.commit) return 'OutOfSync';
  return 'Synced';
}

/** Whether the poller should fetch this source now. */
export function pollDue(row: Pick<GitSourceRow, 'pollIntervalSec' | 'lastFetchAt' | 'appliedGeneration' | 'generation'>, now = Date.now()): boolean {
  if (row.appliedGeneration !== row.generation && !row.lastFetchAt) return true; // never fetched since saved
  if (row.pollIntervalSec <= 0) return false;
  return !row.lastFetchAt || now - new Date(row.lastFetchAt).getTime() >= row.pollIntervalSec * 1000;
}
