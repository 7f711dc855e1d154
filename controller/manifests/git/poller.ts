import type { Services } from '../../services.js';
import { pollDue } from './sync-state.js';
import { settleSyncs, syncSource } from './sync-source.js';

/**
 * The Git sources' poller, a scheduler job (so the leader alone runs it): every
 * SCHEDULER_GIT_POLL_SEC it syncs each source whose poll interval has passed since its last
 * fetch, and each source saved since and never fetched. A source with pollIntervalSec 0 is synced
 * by push webhooks and POST …/manifests-source/sync only.
 */
export async function startGitSourcePoller(s: Services): Promise<() => Promise<void>> {
  s.scheduler.every('git-sources', s.config.scheduler.gitPollSec, async () => {
    for (const row of await s.gitSources.listAll()) if (pollDue(row)) void syncSource(s, row.id, 'poll');
  });
  return () => settleSyncs(s);
}
