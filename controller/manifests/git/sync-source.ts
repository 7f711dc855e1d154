import { join } from 'node:path';
import type { Services } from '../../services.js';
import type { CommitStatusRecord, GitSourceRow, SyncAttempt, SyncOutcome, SyncTrigger } from '../../store/repositories/git-sources.js';
import type { ReconcileResult } from '../../queue/work-queue.js';
import { FileCache } from '../file-cache.js';
import type { LoadedFile } from '../load.js';
import { runApply } from '../run-apply.js';
import { formatError, type ManifestError } from '../types.js';
import { fetchSource, type FetchedCommit } from './fetch-source.js';
import { displayUrl, parseGitUrl } from './git-url.js';
import { fileSourcePath } from './file-roots.js';
import { decryptSopsFiles } from '../sops/decrypt-files.js';
import { serviceUnavailable } from '../../errors/app-error.js';
import { REASONS } from '../../model/conditions.js';
import { passConditions, syncDue, syncPending, type PassResult } from './sync-state.js';
import { postCommitStatus, settleCommitStatus } from './commit-status.js';

/** The work-queue kind of Git sources: `manifests-source/<id>`. */
export const SOURCE_KIND = 'manifests-source';
export const sourceKey = (id: string) => `${SOURCE_KIND}/${id}`;

interface SourceRuns { fetching: Map<string, Promise<unknown>>; caches: Map<string, FileCache<LoadedFile>> }
const runs = new WeakMap<object, SourceRuns>();
const runsOf = (s: Services): SourceRuns => {
  let r = runs.get(s);
  if (!r) runs.set(s, (r = { fetching: new Map(), caches: new Map() }));
  return r;
};

/** Where a source's fetched objects are kept (a bare repository under the state dir). */
export const cacheDirOf = (s: Services, sourceId: string) => join(s.config.stateDir, 'git-cache', sourceId);

/** Forgets what this process kept for a deleted source (its parsed files). */
export function forgetSource(s: Services, sourceId: string): void {
  runsOf(s).caches.delete(sourceId);
}

/**
 * Asks for a sync of the source and hands its key to the work queue: the request is written first
 * (generation + 1), so a process that dies before its pass leaves it to the next one (a restart,
 * another replica's poll tick). Resolves once it is stored: what a 202 may then promise.
 */
export async function requestSync(s: Services, sourceId: string, trigger: SyncTrigger, commit: string | null = null): Promise<GitSourceRow | undefined> {
  const row = await s.gitSources.requestSync(sourceId, trigger, commit);
  if (row) s.queue.add(sourceKey(row.id));
  return row;
}

/** A row just saved (PUT) asked for its sync in the same write: only its key is queued. */
export const enqueueSource = (s: Services, sourceId: string) => s.queue.add(sourceKey(sourceId));

/**
 * The source's reconciler (level-triggered: it receives only the id). Due when a sync was asked
 * for that no pass ended at, or its poll interval passed. It takes the source's lease (another
 * live process holding it: look again when that lease runs out), renews it while it fetches and
 * applies, and ends with one status write (observedGeneration, conditions, the attempt) that lets
 * the lease go. A sync asked for while it ran is one more pass.
 */
export async function reconcileSource(s: Services, sourceId: string): Promise<ReconcileResult | void> {
  const before = await s.gitSources.findById(sourceId);
  if (!before) return;
  // level-triggered too: a plan's end this process did not hear of (a restart) settles the commit's status at the next look
  if (before.commitStatus?.state === 'pending') await settleCommitStatus(s, sourceId);
  if (!syncDue(before)) return;
  const { owner, leaseMs } = s.plans;
  const row = await s.gitSources.claim(sourceId, owner, leaseMs);
  if (!row) return { requeueAfterMs: Math.min(1000, (await s.gitSources.leaseLeftMs(sourceId)) + 50) };
  if (!syncDue(row)) {
    await s.gitSources.finish(row.id, owner, { observedGeneration: row.observedGeneration, conditions: row.conditions });
    return;
  }
  const renewal = setInterval(() => void s.gitSources.renew(row.id, owner, leaseMs).catch(() => undefined), Math.max(100, leaseMs / 3));
  renewal.unref();
  let after: GitSourceRow | undefined;
  try {
    const trigger: SyncTrigger = syncPending(row) ? row.requestedTrigger ?? 'api' : 'poll';
    const pass = await syncPass(s, row, trigger);
    after = await s.gitSources.finish(row.id, owner, pass.outcome);
    if (after) {
      await pass.announce();
      await tellCodeHost(s, after, pass.outcome.commitStatus);
    }
  } finally {
    clearInterval(renewal);
  }
  // asked for again while this pass ran (a push during the fetch): one more pass
  if (after && syncPending(after)) return { requeueAfterMs: 0 };
}

interface Pass { outcome: SyncOutcome; announce: () => Promise<void> }

/** After the pass's write: a final commit status now, or (plans running) when its plans end. */
async function tellCodeHost(s: Services, row: GitSourceRow, status: SyncOutcome['commitStatus']): Promise<void> {
  if (!status) return;
  // the plans may have ended before the pass's write named them: look once now, then on their end
  if (status.state === 'pending') await settleCommitStatus(s, row.id);
  else await postCommitStatus(s, row, status.commit, status.state, status.description);
}

/** Fetches and applies the row's ref: what the pass observed, written by the caller in one go, and its event. */
async function syncPass(s: Services, row: GitSourceRow, trigger: SyncTrigger): Promise<Pass> {
  const env = await s.environments.findById(row.environmentId);
  const started = new Date().toISOString();
  const fields = { environment: env?.name, url: displayUrl(row.url), ref: row.ref ?? 'HEAD' };
  const generation = row.generation;
  // recorded only for a source with a code host: the record is what was (or will be) posted there
  const statusOf = (commit: string, state: CommitStatusRecord['state'], description: string, plans: string[] = []): CommitStatusRecord | undefined =>
    (row.codeHostType ? { commit, state, description, plans } : undefined);
  const ended = (result: PassResult, values: Omit<SyncOutcome, 'observedGeneration' | 'conditions'>, announce: () => Promise<void>): Pass =>
    ({ outcome: { ...values, observedGeneration: generation, conditions: passConditions(row.conditions ?? [], result) }, announce });
  const failed = (reason: Extract<PassResult, { ok: false }>['reason'], commit: string | null, error: string, values: Omit<SyncOutcome, 'observedGeneration' | 'conditions' | 'lastAttempt'>,
    errors: SyncAttempt['errors'] = [], eventData: Record<string, unknown> = {}): Pass =>
    ended({ ok: false, reason, error }, { ...values, lastAttempt: { at: started, trigger, ok: false, commit, error, errors, plans: [] } },
      () => announceFailure(s, row, trigger, { sourceId: row.id, ...fields, commit, error, message: error, errors: [], ...eventData }));

  let fetched: FetchedCommit;
  try {
    fetched = await fetchOf(s, row);
  } catch (e) {
    const error = `fetch of ${displayUrl(row.url)} ${row.ref ?? 'HEAD'} failed: ${(e as Error).message}`;
    s.logger.warn('manifests: git fetch failed', { ...fields, error });
    const named = trigger === 'webhook' && row.requestedCommit ? statusOf(row.requestedCommit, 'failure', error) : undefined;
    return failed(REASONS.FetchFailed, null, error, { lastFetchAt: new Date(), ...(named && { commitStatus: named }) });
  }
  const lastFetchAt = new Date();
  if (fetched.pinnedKnownHosts) await s.gitSources.pinKnownHosts(row.id, fetched.pinnedKnownHosts);
  const revision = { commit: fetched.commit, author: fetched.author, message: fetched.message, committedAt: fetched.committedAt };
  // the event's `message` is the line a notification shows (the error, or what was applied): the commit's own is `commitMessage`
  const commitFields = { ...fields, commit: fetched.commit, author: fetched.author, commitMessage: fetched.message };
  const upToDate = row.appliedRevision?.commit === fetched.commit && row.appliedGeneration === row.generation && row.lastAttempt?.ok;
  if (upToDate && trigger === 'poll') {
    return ended({ ok: true, commit: fetched.commit, message: `commit ${fetched.commit.slice(0, 12)} is applied` }, { lastFetchAt, fetchedCommit: fetched.commit }, async () => undefined);
  }
  await postCommitStatus(s, row, fetched.commit, 'pending', `syncing ${env?.name ?? 'the environment'} to this commit`);
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
    return failed(REASONS.ApplyFailed, fetched.commit, error, { lastFetchAt, fetchedCommit: fetched.commit, commitStatus: statusOf(fetched.commit, 'failure', error) }, [], commitFields);
  }
  if (!result || !result.ok) {
    const lines = errors.map(formatError);
    const error = `commit ${fetched.commit.slice(0, 12)} was not applied (${errors.length} error${errors.length === 1 ? '' : 's'}; ${row.appliedRevision ? `${row.appliedRevision.commit.slice(0, 12)} stays applied` : 'nothing is applied'}): ${lines[0]}`;
    s.logger.warn('manifests: not applied', { ...commitFields, errors: lines.slice(0, 20), errorCount: errors.length });
    return failed(REASONS.ManifestsInvalid, fetched.commit, error, { lastFetchAt, fetchedCommit: fetched.commit, commitStatus: statusOf(fetched.commit, 'failure', error) },
      errors.slice(0, 100).map(({ refused: _r, ...x }) => x), { ...commitFields, errors: lines.slice(0, 20) });
  }
  const attempt: SyncAttempt = { at: started, trigger, ok: true, commit: fetched.commit, error: result.message ?? null, errors: [], plans: result.plans, counts: result.counts };
  if (result.changes.length) s.logger.info('manifests: applied', { ...commitFields, ...result.counts, plans: result.plans.length });
  const c = result.counts;
  const message = `commit ${fetched.commit.slice(0, 12)} applied to ${env?.name ?? 'the environment'}: ${c.create} created, ${c.update} updated, ${c.delete} deleted`;
  const plans = result.plans;
  const commitStatus = plans.length
    ? statusOf(fetched.commit, 'pending', `applied; rolling out ${plans.length} plan${plans.length === 1 ? '' : 's'}`, plans)
    : statusOf(fetched.commit, 'success', `${message}; nothing to roll out`);
  return ended({ ok: true, commit: fetched.commit, message }, {
    lastFetchAt, fetchedCommit: fetched.commit, appliedRevision: revision, appliedGeneration: generation, lastAttempt: attempt, ...(commitStatus && { commitStatus }),
  },
    () => s.events.publish('manifests.synced', row.environmentId, { sourceId: row.id, ...commitFields, message, counts: c, plans }).then(() => undefined));
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

/**
 * Fetches the row's ref into its cache. Fetches of one source in this process take turns (a sync
 * and a diff share the cache's FETCH_HEAD); the queue already runs one pass of a source at a time.
 */
function fetchOf(s: Services, row: GitSourceRow): Promise<FetchedCommit> {
  const { fetching } = runsOf(s);
  const next = (fetching.get(row.id) ?? Promise.resolve()).catch(() => undefined).then(() => fetchNow(s, row));
  fetching.set(row.id, next);
  void next.finally(() => { if (fetching.get(row.id) === next) fetching.delete(row.id); }).catch(() => undefined);
  return next;
}

/** Where a fetch goes and what it fetches: the source's own cache and ref, or a preview's (a pull request's head). */
export interface FetchTarget { cacheDir: string; ref: string | null }

/**
 * Fetches `at.ref` of the source's repository with the source's credentials and checks (the
 * outgoing guard, GIT_FILE_ROOTS, the pinned host key): the path every fetch of a source takes.
 */
export async function fetchNow(s: Services, row: GitSourceRow, at: FetchTarget = { cacheDir: cacheDirOf(s, row.id), ref: row.ref }): Promise<FetchedCommit> {
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
    cacheDir: at.cacheDir, remote, ref: at.ref, path: row.path,
    sshPrivateKey: row.sshPrivateKeySealed ? s.secretBox.open(row.sshPrivateKeySealed) : null,
    username: row.username, token: row.tokenSealed ? s.secretBox.open(row.tokenSealed) : null,
    knownHosts: row.knownHosts,
  });
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
 * leaves the source's status as it is. Its fetch waits for a sync's fetch running in this process
 * (they fetch into the same cache).
 */
export async function diffSource(s: Services, row: GitSourceRow): Promise<SourceDiff> {
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
