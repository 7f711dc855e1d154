import type { GitSourceRow } from '../../store/repositories/git-sources.js';
import { displayUrl } from './git-url.js';
import { conditionsNow, syncStateOf } from './sync-state.js';

/** A source as the API reads it: credentials only as hasX. */
export const sourceView = (r: GitSourceRow) => ({
  id: r.id, environmentId: r.environmentId, url: r.url, ref: r.ref, path: r.path, pollIntervalSec: r.pollIntervalSec, prune: r.prune,
  username: r.username, hasToken: !!r.tokenSealed, hasSshPrivateKey: !!r.sshPrivateKeySealed, sshKnownHosts: r.knownHosts,
  codeHost: r.codeHostType && r.codeHostApiUrl ? { type: r.codeHostType, apiUrl: r.codeHostApiUrl, hasToken: !!r.codeHostTokenSealed } : null,
  previews: r.previews ?? null,
  createdAt: r.createdAt, updatedAt: r.updatedAt,
});

/** A source's status as Argo CD shows an application's: the state, the applied commit, the last fetch, what failed. */
export const statusView = (r: GitSourceRow, environment: string) => {
  const a = r.lastAttempt;
  return {
    environmentId: r.environmentId, environment, url: displayUrl(r.url), ref: r.ref, path: r.path,
    sync: syncStateOf(r),
    generation: r.generation,
    observedGeneration: r.observedGeneration ?? null,
    conditions: conditionsNow(r),
    requestedAt: r.requestedAt ?? null,
    requestedCommit: r.requestedCommit ?? null,
    revision: r.appliedRevision ?? null,
    lastFetchAt: r.lastFetchAt ?? null,
    fetchedCommit: r.fetchedCommit ?? null,
    ...(a && !a.ok && a.error ? { error: a.error } : {}),
    errors: a && !a.ok ? a.errors : [],
    lastAttempt: a ? { at: a.at, trigger: a.trigger, ok: a.ok, commit: a.commit, plans: a.plans, ...(a.counts && { counts: a.counts }) } : null,
  };
};
