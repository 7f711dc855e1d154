import type { Services } from '../../services.js';
import { reconcileSource, SOURCE_KIND, sourceKey } from './sync-source.js';
import { settleCommitStatus } from './commit-status.js';
import { isTerminalPlan, type PlanStatus } from '../../model/plan-states.js';
import { PREVIEW_KIND, previewKey, reconcilePreview } from './sync-preview.js';

/**
 * The Git sources' reconciler and what hands it keys (docs/git-sources.md#a-durable-sync). Every
 * replica runs the reconciler (a source's lease keeps two passes of it apart) and, at start, queues
 * every source: a sync asked for before a crash is found in the store. The poller, a scheduler job
 * (the leader's), queues every source each SCHEDULER_GIT_POLL_SEC and does nothing else: the
 * reconciler decides whether its poll interval passed or a sync was asked for (by a push webhook,
 * POST …/manifests-source/sync, a save), also one a dead process's lease held. The end of a plan
 * a commit caused settles that commit's status on the code host (commit-status.ts).
 */
export async function startGitSourcePoller(s: Services): Promise<() => Promise<void>> {
  s.queue.register(SOURCE_KIND, (id) => reconcileSource(s, id));
  s.queue.register(PREVIEW_KIND, (id) => reconcilePreview(s, id));
  // previews too: a pass a crash interrupted resumes, and a TTL that ran out is seen
  const enqueueAll = async () => {
    for (const row of await s.gitSources.listAll()) s.queue.add(sourceKey(row.id));
    for (const p of await s.previews.listAll()) s.queue.add(previewKey(p.sourceId, p.number));
  };
  await enqueueAll();
  s.scheduler.every('git-sources', s.config.scheduler.gitPollSec, enqueueAll);
  // a commit's final status is posted when the plans it caused end (once: a compare-and-set on the row)
  const unsubscribe = s.events.subscribe((e) => {
    if (e.type !== 'plan.updated' || !isTerminalPlan(e.data.status as PlanStatus)) return;
    void s.previews.waitingForPlan(String(e.data.planId))
      .then((rows) => rows.forEach((p) => s.queue.add(previewKey(p.sourceId, p.number))))
      .catch((err: unknown) => s.logger.warn('previews: could not look at a preview after its plan ended', { planId: e.data.planId, error: String(err) }));
    void s.gitSources.waitingForPlan(String(e.data.planId))
      .then((ids) => Promise.all(ids.map((id) => settleCommitStatus(s, id))))
      .catch((err: unknown) => s.logger.warn('manifests: could not settle a commit status', { planId: e.data.planId, error: String(err) }));
  });
  return async () => unsubscribe();
}
