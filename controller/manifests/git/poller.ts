import type { Services } from '../../services.js';
import { reconcileSource, SOURCE_KIND, sourceKey } from './sync-source.js';

/**
 * The Git sources' reconciler and what hands it keys (docs/git-sources.md#a-durable-sync). Every
 * replica runs the reconciler (a source's lease keeps two passes of it apart) and, at start, queues
 * every source: a sync asked for before a crash is found in the store. The poller, a scheduler job
 * (the leader's), queues every source each SCHEDULER_GIT_POLL_SEC and does nothing else: the
 * reconciler decides whether its poll interval passed or a sync was asked for (by a push webhook,
 * POST …/manifests-source/sync, a save), also one a dead process's lease held.
 */
export async function startGitSourcePoller(s: Services): Promise<void> {
  s.queue.register(SOURCE_KIND, (id) => reconcileSource(s, id));
  const enqueueAll = async () => {
    for (const row of await s.gitSources.listAll()) s.queue.add(sourceKey(row.id));
  };
  await enqueueAll();
  s.scheduler.every('git-sources', s.config.scheduler.gitPollSec, enqueueAll);
}
