// Commit statuses on the code host (docs/git-sources.md#commit-statuses): GitHub's and Gitea's
// `POST {apiUrl}/repos/{owner}/{repo}/statuses/{sha}`, the same body on both. Pending when a sync
// starts applying a commit; success or failure (with the reason) when the plans it caused end,
// or at once when it caused none or did not apply. Every request goes through the outgoing guard;
// the token is sealed in the row, opened for the one request, and in no log, event or response.
import type { Services } from '../../services.js';
import type { CommitStatusRecord, GitSourceRow } from '../../store/repositories/git-sources.js';
import { isTerminalPlan } from '../../model/plan-states.js';
import { messageOf } from '../../deploy/message-of.js';

export type CodeHostType = 'github' | 'gitea';
export const CODE_HOST_TYPES: CodeHostType[] = ['github', 'gitea'];
export type CommitState = 'pending' | 'success' | 'failure';

/** What both hosts take (GitHub cuts a description at 140 characters). */
export interface CommitStatusBody { state: CommitState; description: string; context: string; target_url?: string }

/**
 * `owner/repo` of a source URL (pure): the last two segments of its path, `.git` dropped, for
 * https://host/owner/repo.git, ssh://git@host/owner/repo and git@host:owner/repo.git alike. Null
 * when the path has fewer than two.
 */
export function repositoryOf(url: string): { owner: string; repo: string } | null {
  const scp = /^(?:[A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:(?!\/\/)(.+)$/.exec(url);
  let path: string;
  if (scp && !url.includes('://')) path = scp[1]!;
  else {
    try {
      path = decodeURIComponent(new URL(url).pathname);
    } catch {
      return null;
    }
  }
  const parts = path.replace(/\.git\/?$/i, '').split('/').filter(Boolean);
  if (parts.length < 2) return null;
  const [owner, repo] = parts.slice(-2) as [string, string];
  const safe = /^[A-Za-z0-9._-]+$/;
  return safe.test(owner) && safe.test(repo) ? { owner, repo } : null;
}

/** The request of one status (pure): the URL under the host's API root, its headers and body. */
export function commitStatusRequest(host: { type: CodeHostType; apiUrl: string }, token: string, repository: { owner: string; repo: string }, sha: string, body: CommitStatusBody) {
  const url = `${host.apiUrl.replace(/\/+$/, '')}/repos/${encodeURIComponent(repository.owner)}/${encodeURIComponent(repository.repo)}/statuses/${sha}`;
  const headers: Record<string, string> = {
    'content-type': 'application/json', 'user-agent': 'stevedore',
    ...(host.type === 'github'
      ? { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28' }
      : { authorization: `token ${token}`, accept: 'application/json' }),
  };
  return { url, headers, body: JSON.stringify({ ...body, description: body.description.slice(0, 140) }) };
}

const POST_TIMEOUT_MS = 10_000;

/**
 * Posts one status for the source's commit; a refusal or an unreachable host is logged and
 * never fails the sync (the status on the code host is a courtesy to the pusher; ours is the truth).
 */
export async function postCommitStatus(s: Services, row: GitSourceRow, sha: string, state: CommitState, description: string,
  as?: { context: string; targetUrl: string | null }): Promise<void> {
  if (!row.codeHostType || !row.codeHostApiUrl || !row.codeHostTokenSealed) return;
  const repository = repositoryOf(row.url);
  if (!repository) return;
  const env = await s.environments.findById(row.environmentId);
  // a preview's status has its own context and links to the preview itself
  const targetUrl = as ? as.targetUrl ?? undefined : s.config.publicUrl ? `${s.config.publicUrl}/env/${row.environmentId}/git` : undefined;
  const req = commitStatusRequest({ type: row.codeHostType, apiUrl: row.codeHostApiUrl }, s.secretBox.open(row.codeHostTokenSealed), repository, sha,
    { state, description, context: as?.context ?? `stevedore/${env?.name ?? row.environmentId}`, ...(targetUrl && { target_url: targetUrl }) });
  const where = { sourceId: row.id, apiUrl: row.codeHostApiUrl, commit: sha, state };
  try {
    const res = await s.outgoing.fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: AbortSignal.timeout(POST_TIMEOUT_MS) });
    await res.body?.cancel().catch(() => undefined);
    if (!res.ok) s.logger.warn('manifests: the code host refused a commit status', { ...where, status: res.status });
  } catch (e) {
    s.logger.warn('manifests: a commit status could not be posted', { ...where, error: messageOf(e) });
  }
}

/**
 * The final status of a commit whose plans all ended (any replica may look: the compare-and-set
 * on the row posts it once). Success when every plan succeeded; else failure naming the first
 * plan that did not, and why.
 */
export async function settleCommitStatus(s: Services, sourceId: string): Promise<void> {
  const row = await s.gitSources.findById(sourceId);
  const record = row?.commitStatus;
  if (!row || !record || record.state !== 'pending') return;
  const plans = await s.plans.repo.findByIds(record.plans);
  if (plans.some((p) => !isTerminalPlan(p.status))) return;
  const bad = plans.find((p) => p.status !== 'succeeded');
  const final: CommitStatusRecord = bad
    ? { ...record, state: 'failure', description: `plan ${bad.name} ${bad.status.replace('_', ' ')}${bad.error ? `: ${bad.error}` : ''}` }
    : { ...record, state: 'success', description: `rolled out: ${plans.length} plan${plans.length === 1 ? '' : 's'} succeeded` };
  if (await s.gitSources.settleCommitStatus(row.id, record.commit, final)) await postCommitStatus(s, row, record.commit, final.state, final.description);
}
