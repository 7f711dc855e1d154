import { relative, resolve, sep } from 'node:path';
import { watch } from 'chokidar';
import type { Services } from '../services.js';
import { runApply } from './run-apply.js';
import { SaveCoalescer } from './save-coalescer.js';
import { manifestsStatusOf } from './status.js';
import { isDatabaseUnavailable } from '../store/connection-errors.js';

/**
 * A change to a folder that was quiet this long applies at once (after SETTLE_MS); changes while
 * the folder is busy (a git pull of 20 files, an apply running) coalesce into one more apply this
 * long after the last of them.
 */
export const QUIET_MS = 250;
/**
 * Events this close to the first are the same save: an editor's truncate + write, the files of a
 * checkout written together. They join the apply the first one scheduled.
 */
export const SETTLE_MS = 30;

const relevant = (path: string) => /\.ya?ml$/i.test(path);
/**
 * Hidden folders (.git above all: thousands of objects) and node_modules are not watched; a
 * pull changes the YAML files themselves, and the commit is read when the apply runs.
 */
const skipped = (root: string, path: string) => relative(root, resolve(path)).split(sep).some((p) => p.startsWith('.') && p !== '..' || p === 'node_modules');

/**
 * Watches MANIFESTS_DIR and applies it after each burst of changes (and once at start-up).
 * Applies never overlap: a change during an apply schedules exactly one more afterwards.
 */
export async function startManifestWatcher(s: Services): Promise<(() => Promise<void>) | void> {
  if (!s.config.manifestsDir) return;
  const dir = resolve(s.config.manifestsDir);
  const status = manifestsStatusOf(s);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const apply = async (trigger: 'watch' | 'startup') => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        const r = await runApply(s, trigger, {});
        if (!r.ok) s.logger.warn('manifests: not applied', { errors: r.errors.length, revision: r.revision.contentHash });
        else if (r.changes.length) s.logger.info('manifests: applied', { ...r.counts, plans: r.plans.length });
      } catch (e) {
        s.logger.error('manifests: apply failed', { error: (e as Error).message });
        // the folder did not change, the database went away: apply it again once it may be back
        if (isDatabaseUnavailable(e) && !stopped) retry();
        status.record({ at: new Date().toISOString(), trigger, revision: { contentHash: '', gitCommit: null }, ok: false, counts: { create: 0, update: 0, delete: 0, orphan: 0 }, errors: [], plans: [], message: (e as Error).message });
      }
    })();
    await running;
    running = null;
    if (again && !stopped) {
      again = false;
      await apply('watch');
    }
  };
  let retryTimer: NodeJS.Timeout | null = null;
  const retry = () => {
    if (retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      if (!stopped) void apply('watch');
    }, 5000);
    retryTimer.unref();
  };
  const coalescer = new SaveCoalescer(QUIET_MS, SETTLE_MS);
  const schedule = (event: string) => {
    const delay = coalescer.event(event, Date.now(), running !== null);
    if (delay === null) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      coalescer.fired();
      void apply('watch');
    }, delay);
  };

  const watcher = watch(dir, {
    ignoreInitial: true,
    ignored: (path, stats) => skipped(dir, path) || (!!stats?.isFile() && !relevant(path)),
  });
  watcher.on('all', (event, path) => {
    if (relevant(path)) schedule(event);
  });
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  status.watching = true;
  await apply('startup');
  return async () => {
    stopped = true;
    status.watching = false;
    if (timer) clearTimeout(timer);
    if (retryTimer) clearTimeout(retryTimer);
    await watcher.close();
    await running;
  };
}
