import { constantTimeEqual } from '../crypto/constant-time.js';
import { verifySignature } from '../crypto/webhook-hmac.js';

export type CodeHost = 'github' | 'gitlab' | 'gitea';

type Headers = Record<string, string | string[] | undefined>;
const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Checks a code host's push delivery against CODEHOST_WEBHOOK_SECRET (pure): GitHub's
 * X-Hub-Signature-256 (`sha256=<hex HMAC>` of the raw body), Gitea's X-Gitea-Signature (hex) or
 * the same X-Hub-Signature-256, GitLab's X-Gitlab-Token (the secret itself). Every comparison is
 * constant-time; no secret, or no header, fails (closed). Returns the host, or why it failed.
 */
export function verifyGitWebhook(secret: string | null, raw: Buffer, headers: Headers): { host: CodeHost } | { refused: string } {
  if (!secret) return { refused: 'This webhook endpoint is disabled: CODEHOST_WEBHOOK_SECRET is not configured' };
  const gitlabToken = header(headers, 'x-gitlab-token');
  if (header(headers, 'x-gitlab-event') !== undefined || gitlabToken !== undefined) {
    if (!gitlabToken) return { refused: 'The X-Gitlab-Token header is missing' };
    return constantTimeEqual(gitlabToken, secret) ? { host: 'gitlab' } : { refused: 'The X-Gitlab-Token header does not match' };
  }
  const gitea = header(headers, 'x-gitea-signature');
  const host: CodeHost = header(headers, 'x-gitea-event') !== undefined ? 'gitea' : 'github';
  if (host === 'gitea' && gitea) return verifySignature(secret, raw, gitea, '') ? { host } : { refused: 'The X-Gitea-Signature header does not match the body' };
  const hub = header(headers, 'x-hub-signature-256');
  if (!hub) return { refused: 'The X-Hub-Signature-256 header is missing' };
  return verifySignature(secret, raw, hub, 'sha256=') ? { host } : { refused: 'The X-Hub-Signature-256 signature does not match the body' };
}

export interface PushEvent {
  /** The pushed ref, in full (refs/heads/main, refs/tags/v1). */
  ref: string;
  /** Every URL the payload gives for the repository (https, ssh, git). */
  repositoryUrls: string[];
  /** The repository's default branch, when the payload says (a source without a ref follows it). */
  defaultBranch: string | null;
  /** The commit the ref now names (`after`; GitLab's `checkout_sha`), when it is a full SHA: the sync asked for names it. */
  commit: string | null;
}

/** The event name of a delivery: `push` for pushes of branches and tags on every host; `ping` for a hook's test. */
export function eventOf(host: CodeHost, headers: Headers): string {
  if (host === 'gitlab') {
    const e = header(headers, 'x-gitlab-event') ?? '';
    return /^(Push|Tag Push) Hook$/.test(e) ? 'push' : e || '(none)';
  }
  return header(headers, host === 'gitea' ? 'x-gitea-event' : 'x-github-event') ?? header(headers, 'x-github-event') ?? '(none)';
}

/** Reads a push payload of GitHub, Gitea or GitLab; null when it is not one. */
export function pushOf(body: unknown): PushEvent | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, any>;
  if (typeof b.ref !== 'string' || !b.ref) return null;
  const urls = [b.repository?.clone_url, b.repository?.ssh_url, b.repository?.git_url, b.repository?.html_url, b.repository?.url,
    b.repository?.git_http_url, b.repository?.git_ssh_url, b.project?.git_http_url, b.project?.git_ssh_url, b.project?.web_url]
    .filter((u): u is string => typeof u === 'string' && u.length > 0);
  const defaultBranch = [b.repository?.default_branch, b.project?.default_branch].find((x) => typeof x === 'string') ?? null;
  const commit = [b.checkout_sha, b.after].find((x): x is string => typeof x === 'string' && /^[0-9a-f]{40}$/.test(x) && !/^0+$/.test(x)) ?? null;
  return { ref: b.ref, repositoryUrls: [...new Set(urls)], defaultBranch, commit };
}

/**
 * One form for every way of writing a repository's URL, so a payload's https URL finds a source
 * configured with the ssh one: host and path, lowercased, without scheme, user, port or `.git`.
 */
export function repositoryKey(url: string): string {
  let u = url.trim();
  const scp = /^(?:[A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):(?!\/\/)(.+)$/.exec(u);
  if (scp && !u.includes('://')) u = `${scp[1]}/${scp[2]}`;
  else u = u.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '').replace(/^([^/:]*):\d+/, '$1');
  return u.replace(/\/+$/, '').replace(/\.git$/i, '').replace(/\/+/g, '/').toLowerCase();
}

/** Whether a push of `push.ref` concerns a source following `ref` (null: the remote's HEAD). */
export function refMatches(sourceRef: string | null, push: PushEvent): boolean {
  if (sourceRef === null) return push.defaultBranch ? push.ref === `refs/heads/${push.defaultBranch}` : push.ref.startsWith('refs/heads/');
  return push.ref === sourceRef || push.ref === `refs/heads/${sourceRef}` || push.ref === `refs/tags/${sourceRef}`;
}

/** Actions of a pull_request delivery a preview follows: opened, synchronize (a push to it), reopened; closed tears it down. */
export const PULL_REQUEST_ACTIONS = ['opened', 'synchronize', 'reopened', 'closed'] as const;

export interface PullRequestEvent {
  action: typeof PULL_REQUEST_ACTIONS[number];
  number: number;
  /** The head commit and branch of the pull request. */
  headSha: string;
  headRef: string | null;
  /** The branch it would merge into, in full (refs/heads/main): the source following it gets the preview. */
  baseRef: string;
  /** Every URL the payload gives for the (base) repository. */
  repositoryUrls: string[];
  defaultBranch: string | null;
}

/** Reads a pull_request payload of GitHub (and Gitea, the same shape); null when it is not one, or an action previews do not follow. */
export function pullRequestOf(body: unknown): PullRequestEvent | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, any>;
  const pr = b.pull_request;
  const action = PULL_REQUEST_ACTIONS.find((a) => a === b.action);
  const number = Number(b.number ?? pr?.number);
  if (!action || !pr || typeof pr !== 'object' || !Number.isSafeInteger(number) || number < 1) return null;
  const headSha = pr.head?.sha;
  const baseRef = pr.base?.ref;
  if (typeof headSha !== 'string' || !/^[0-9a-f]{40}$/.test(headSha) || typeof baseRef !== 'string' || !baseRef) return null;
  const repo = b.repository ?? pr.base?.repo ?? {};
  const urls = [repo.clone_url, repo.ssh_url, repo.git_url, repo.html_url, repo.url].filter((u): u is string => typeof u === 'string' && u.length > 0);
  return {
    action, number, headSha, headRef: typeof pr.head?.ref === 'string' ? pr.head.ref : null,
    baseRef: baseRef.startsWith('refs/') ? baseRef : `refs/heads/${baseRef}`,
    repositoryUrls: [...new Set(urls)], defaultBranch: typeof repo.default_branch === 'string' ? repo.default_branch : null,
  };
}
