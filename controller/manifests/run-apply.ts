import type { Services } from '../services.js';
import { applyManifests, type ApplyOptions, type ApplyResult } from './apply.js';
import { FileCache } from './file-cache.js';
import { folderCommit } from './folder-commit.js';
import type { LoadedFile } from './load.js';
import { readManifestDir } from './read-dir.js';
import { manifestsStatusOf, type ApplyRecord } from './status.js';
import type { ManifestFile } from './types.js';
import type { ManifestOrigin } from './reference-policy.js';

/** One cache per running service (keyed by its Services object), for the folder it watches. */
const caches = new WeakMap<object, FileCache<LoadedFile>>();
function folderCacheOf(s: Services): FileCache<LoadedFile> {
  let cache = caches.get(s);
  if (!cache) caches.set(s, (cache = new FileCache()));
  return cache;
}

export interface RunApplyResult extends ApplyResult { plans: string[]; /** Applied, but starting a plan failed. */ message?: string }

/** The name plans and revisions carry: the commit, else the content hash. */
export const revisionName = (r: ApplyResult['revision']) => `manifests ${(r.gitCommit ?? r.contentHash).replace(/^sha256:/, '').slice(0, 12)}`;

/**
 * The one way manifests are applied (the folder watcher, POST /api/manifests/apply and every Git
 * source): applies the files given (or MANIFESTS_DIR's), records the outcome and, after the
 * transaction committed, hands changed services to the deploy engine and pruned deployments to
 * a plan of remove steps. A Git source passes its commit, scope and cache, and keeps its own
 * status (the folder's is not touched).
 */
export async function runApply(s: Services, trigger: ApplyRecord['trigger'] | 'git', opts: Partial<Omit<ApplyOptions, 'origin'>> & { files?: ManifestFile[] }): Promise<RunApplyResult> {
  const dir = opts.scope ? null : s.config.manifestsDir;
  const files = opts.files ?? (dir ? await readManifestDir(dir) : []);
  // Whose files these are (reference-policy.ts): only what this function read from MANIFESTS_DIR
  // itself is the folder's; files handed in came from a client, a Git source's from its commit.
  const origin: ManifestOrigin = opts.scope ? 'git' : opts.files ? 'api' : 'folder';
  const gitCommit = opts.gitCommit !== undefined ? opts.gitCommit : opts.files ? null : dir ? await folderCommit(dir, files) : null;
  // Files sent by a client are not the folder's: they neither use nor replace its cache.
  const cache = opts.cache ?? (opts.files ? undefined : folderCacheOf(s));
  const result = await applyManifests(s, files, { ...opts, origin, baseDir: origin === 'folder' ? dir : null, gitCommit, cache });
  let plans: string[] = [];
  let message: string | undefined;
  const name = revisionName(result.revision);
  // servers that now match a selector get their deployments before the changed services' plans are made
  if (result.ok && !result.dryRun && result.placementChanged.length) {
    try {
      plans.push(...await s.handOff.placeServices(result.placementChanged));
    } catch (e) {
      message = `applied, but placing services by their serverSelector failed: ${(e as Error).message}`;
      s.logger.warn('manifests: placing services by selector failed', { error: (e as Error).message });
    }
  }
  if (result.ok && !result.dryRun && result.changedServices.length) {
    try {
      plans.push(...await s.handOff.startPlans(result.changedServices, name));
    } catch (e) {
      message = `applied, but starting deploy plans failed: ${(e as Error).message}`;
      s.logger.warn('manifests: starting deploy plans failed', { error: (e as Error).message });
    }
  }
  // Pooled connections still hold the old key.
  if (result.ok && !result.dryRun) for (const id of result.sshKeyChanged) s.hosts.invalidateEnvironment(id);
  // After commit: a plan of remove steps (it talks to servers in the background, like any plan)
  if (result.ok && !result.dryRun && result.removedDeployments.length) {
    try {
      plans.push(...await s.handOff.removeContainers(result.removedDeployments, name));
    } catch (e) {
      message = `applied, but starting the removal of pruned containers failed: ${(e as Error).message}`;
      s.logger.warn('manifests: starting the removal of pruned containers failed', { error: (e as Error).message });
    }
  }
  if (!result.dryRun && trigger !== 'git') {
    manifestsStatusOf(s).record({
      at: new Date().toISOString(), trigger, revision: result.revision, ok: result.ok, counts: result.counts, errors: result.errors, plans, message,
    });
  }
  return { ...result, plans, ...(message && { message }) };
}
