import { join } from 'node:path';
import type { Services } from '../../services.js';
import type { GitSourceRow, SyncAttempt } from '../../store/repositories/git-sources.js';
import { FileCache } from '../file-cache.js';
import type { LoadedFile } from '../load.js';
import { runApply } from '../run-apply.js';
import { formatError, type ManifestError } from '../types.js';
import { fetchSource, type FetchedCommit } from './fetch-source.js';
import { displayUrl, parseGitUrl } from './git-url.js';
import { fileSourcePath } from './file-roots.js';
import { decryptSopsFiles } from '../sops/decrypt-files.js';
import { serviceUnavailable } from '../../errors/app-error.js';

export type SyncTrigger = SyncAttempt['trigger'];

interface InFlight { promise: Promise<void>; again: SyncTrigger | null }
interface SourceRuns { inFlight: Map<string, InFlight>; caches: Map<string, FileCache<LoadedFile>> }
const runs = new WeakMap<object, SourceRuns>();
const runsOf = (s: Services): SourceRuns => {
  let r = runs.get(s);
  if (!r) runs.set(s, (r = { inFlight: new Map(), caches: new Map() }));
  return r;
};

/** Where a source's fetched objects are kept (a bare repository under the state dir). */
export const cacheDirOf = (s: Services, sourceId: string) => join(s.config.stateDir, 'git-cache', sourceId);

/** Forgets what this process kept for a deleted source (its parsed files). */
export function forgetSource(s: Services, sourceId: string): void {
  runsOf(s).caches.delete(sourceId);
}

/**
 * Fetches and applies one source, now. Syncs of a source never overlap: asked while one runs, one
 * more runs right after it (a push during a fetch is not lost). Resolves when the sync (and any
 * queued after it) ended; never rejects: the outcome is in the source's status.
 */
export function syncSource(s: Services, sourceId: string, trigger: SyncTrigger): Promise<void> {
  const { inFlight } = runsOf(s);
  const running = inFlight.get(sourceId);
  if (running) {
    running.again = trigger;
    return running.promise;
  }
  const entry: InFlight = { promise: Promise.resolve(), again: null };
  entry.promise = (async () => {
    let next: SyncTrigger | null = trigger;
    while (next) {
      entry.again = null;
      await syncOnce(s, sourceId, next).catch((e) => s.logger.error('manifests: git source sync failed', { sourceId, error: (e as Error).message }));
      next = entry.again;
    }
  })().finally(() => inFlight.delete(sourceId));
  inFlight.set(sourceId, entry);
  return entry.promise;
}

async function syncOnce(s: Services, sourceId: string, trigger: SyncTrigger): Promise<void> {
  // another replica may hold the source: wait for it a little (its fetch may predate a push)
  for (let i = 0; !(await s.gitSources.claim(sourceId)); i++) {
    if (i >= 60 || !(await s.gitSources.findById(sourceId))) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  const row = await s.gitSources.findById(sourceId);
  if (!row) return;
  const env = await s.environments.findById(row.environmentId);
  const started = new Date().toISOString();
  const fields = { environment: env?.name, url: displayUrl(row.url), ref: row.ref ?? 'HEAD' };
  let fetched: FetchedCommit;
  try {
    fetched = await fetchOf(s, row);
  } catch (e) {
    const error = `fetch of ${displayUrl(row.url)} ${row.ref ?? 'HEAD'} failed: ${(e as Error).message}`;
    s.logger.warn('manifests: git fetch failed', { ...fields, error });
    await s.gitSources.release(row.id, { lastFetchAt: new Date(), lastAttempt: { at: started, trigger, ok: false, commit: null, error, errors: [], plans: [] } });
    await announceFailure(s, row, trigger, { sourceId: row.id, ...fields, commit: null, error, message: error, errors: [] });
    return;
  }
  const lastFetchAt = new Date();
  if (fetched.pinnedKnownHosts) await s.gitSources.pinKnownHosts(row.id, fetched.pinnedKnownHosts);
  const upToDate = row.appliedRevision?.commit === fetched.commit && row.appliedGeneration === row.generation && row.lastAttempt?.ok;
  if (upToDate && trigger === 'poll') {
    await s.gitSources.release(row.id, { lastFetchAt, fetchedCommit: fetched.commit });
    return;
  }
  const revision = { commit: fetched.commit, author: fetched.author, message: fetched.message, committedAt: fetched.committedAt };
  // the event's `message` is the line a notification shows (the error, or what was applied): the commit's own is `commitMessage`
  const commitFields = { ...fields, commit: fetched.commit, author: fetched.author, commitMessage: fetched.message };
  let errors: ManifestError[] = [];
  let result: Awaited<ReturnType<typeof runApply>> | null = null;
  try {
    const decrypted = await decryptSopsFiles(s, row.environmentId, fetched.files);
    errors = decrypted.errors;
    if (!errors.length) {
      result = await runApply(s, 'git', {
        files: decrypted.files, gitCommit: fetched.commit, prune: row.prune, cache: cacheOf(s, row.id), sopsValues: decrypted.values,
        scope: { origin: `git:${row.environmentId}`, environment: env!.name, repository: displayUrl(row.url) },
      });
      errors = result.errors;
    }
  } catch (e) {
    const error = `apply of ${fetched.commit.slice(0, 12)} failed: ${(e as Error).message}`;
    s.logger.error('manifests: git source apply failed', { ...commitFields, error });
    await s.gitSources.release(row.id, { lastFetchAt, fetchedCommit: fetched.commit, lastAttempt: { at: started, trigger, ok: false, commit: fetched.commit, error, errors: [], plans: [] } });
    await announceFailure(s, row, trigger, { sourceId: row.id, ...commitFields, error, message: error, errors: [] });
    return;
  }
  if (!result || !result.ok) {
    const lines = errors.map(formatError);
    const error = `commit ${fetched.commit.slice(0, 12)} was not applied (${errors.length} error${errors.length === 1 ? '' : 's'}; ${row.appliedRevision ? `${row.appliedRevision.commit.slice(0, 12)} stays applied` : 'nothing is applied'}): ${lines[0]}`;
    s.logger.warn('manifests: not applied', { ...commitFields, errors: lines.slice(0, 20), errorCount: errors.length });
    await s.gitSources.release(row.id, {
      lastFetchAt, fetchedCommit: fetched.commit,
      lastAttempt: { at: started, trigger, ok: false, commit: fetched.commit, error, errors: errors.slice(0, 100).map(({ refused: _r, ...x }) => x), plans: [] },
    });
    await announceFailure(s, row, trigger, { sourceId: row.id, ...commitFields, error, message: error, errors: lines.slice(0, 20) });
    return;
  }
  const attempt: SyncAttempt = { at: started, trigger, ok: true, commit: fetched.commit, error: result.message ?? null, errors: [], plans: result.plans, counts: result.counts };
  await s.gitSources.release(row.id, { lastFetchAt, fetchedCommit: fetched.commit, appliedRevision: revision, appliedGeneration: row.generation, lastAttempt: attempt });
  if (result.changes.length) s.logger.info('manifests: applied', { ...commitFields, ...result.counts, plans: result.plans.length });
  const c = result.counts;
  const message = `commit ${fetched.commit.slice(0, 12)} applied to ${env?.name ?? 'the environment'}: ${c.create} created, ${c.update} updated, ${c.delete} deleted`;
  await s.events.publish('manifests.synced', row.environmentId, { sourceId: row.id, ...commitFields, message, counts: result.counts, plans: result.plans });
}

/**
 * Publishes `manifests.sync_failed` (a notification type: in-app, email, chat and outgoing
 * webhooks get it). A poll that meets the same failure again (same commit, same error) says
 * nothing new and raises no second event; a sync someone asked for (API, push webhook) always
 * announces its outcome.
 */
async function announceFailure(s: Services, row: GitSourceRow, trigger: SyncTrigger, data: { commit: string | null; error: string } & Record<string, unknown>): Promise<void> {
  const before = row.lastAttempt;
  if (trigger === 'poll' && before && !before.ok && before.commit === data.commit && before.error === data.error) return;
  await s.events.publish('manifests.sync_failed', row.environmentId, data);
}

function cacheOf(s: Services, id: string): FileCache<LoadedFile> {
  const { caches } = runsOf(s);
  let c = caches.get(id);
  if (!c) caches.set(id, (c = new FileCache()));
  return c;
}

async function fetchOf(s: Services, row: GitSourceRow): Promise<FetchedCommit> {
  let remote = parseGitUrl(row.url);
  if ('problem' in remote) throw new Error(`url ${remote.problem}`);
  if (remote.host) await s.outgoing.check(row.url.includes('://') ? row.url : `ssh://${remote.host}`);
  if (remote.transport === 'file') {
    // checked again at each fetch (GIT_FILE_ROOTS may have changed, a symlink moved); git reads the path checked
    const local = fileSourcePath(row.url, s.config.gitFileRoots, s.config.stateDir);
    if ('problem' in local) throw new Error(`url ${local.problem}`);
    remote = { ...remote, url: local.path };
  }
  return fetchSource({
    cacheDir: cacheDirOf(s, row.id), remote, ref: row.ref, path: row.path,
    sshPrivateKey: row.sshPrivateKeySealed ? s.secretBox.open(row.sshPrivateKeySealed) : null,
    username: row.username, token: row.tokenSealed ? s.secretBox.open(row.tokenSealed) : null,
    knownHosts: row.knownHosts,
  });
}

/** Waits for the syncs this process runs (shutdown). */
export async function settleSyncs(s: Services): Promise<void> {
  await Promise.allSettled([...runsOf(s).inFlight.values()].map((r) => r.promise));
}

export interface SourceDiff {
  commit: { commit: string; author: string; message: string; committedAt: string };
  result: Awaited<ReturnType<typeof runApply>> | null;
  /** Errors of the commit (files that cannot be decrypted, invalid manifests); nothing would be applied. */
  errors: ManifestError[];
}

/**
 * What the next sync would do (`stevedore diff --source`): fetches the source's ref and runs the
 * apply of that commit as a dry run, through the same path a sync takes; applies nothing and
 * leaves the source's status as it is. A sync of the source running in this process ends first
 * (they fetch into the same cache).
 */
export async function diffSource(s: Services, row: GitSourceRow): Promise<SourceDiff> {
  await runsOf(s).inFlight.get(row.id)?.promise;
  const env = await s.environments.findById(row.environmentId);
  const fetched = await fetchOf(s, row).catch((e: Error) => {
    throw serviceUnavailable(`fetch of ${displayUrl(row.url)} ${row.ref ?? 'HEAD'} failed: ${e.message}`);
  });
  if (fetched.pinnedKnownHosts) await s.gitSources.pinKnownHosts(row.id, fetched.pinnedKnownHosts);
  const commit = { commit: fetched.commit, author: fetched.author, message: fetched.message, committedAt: fetched.committedAt };
  const decrypted = await decryptSopsFiles(s, row.environmentId, fetched.files);
  if (decrypted.errors.length) return { commit, result: null, errors: decrypted.errors };
  const result = await runApply(s, 'git', {
    files: decrypted.files, gitCommit: fetched.commit, prune: row.prune, dryRun: true, sopsValues: decrypted.values,
    scope: { origin: `git:${row.environmentId}`, environment: env!.name, repository: displayUrl(row.url) },
  });
  return { commit, result, errors: result.errors };
}
