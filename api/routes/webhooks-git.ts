import getRawBody from 'raw-body';
import type { Services } from '../../controller/services.js';
import { unauthorized } from '../../controller/errors/app-error.js';
import { eventOf, pullRequestOf, pushOf, refMatches, repositoryKey, verifyGitWebhook, type CodeHost } from '../../controller/webhooks/git-push.js';
import { requestSync } from '../../controller/manifests/git/sync-source.js';
import { requestPreview } from '../../controller/manifests/git/sync-preview.js';
import { previewEnvironmentName } from '../../controller/manifests/git/preview-config.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, object, str, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

const answer = object({
  success: bool, ignored: bool, reason: str(), host: enumOf('github', 'gitlab', 'gitea'), matched: int(0),
  sources: arrayOf(object({ environmentId: uuid, environment: str() })),
  previews: arrayOf(object({
    environmentId: uuid, environment: str(), number: int(1), previewEnvironment: str({ description: 'The preview environment: <env>-pr-<number>' }),
    open: bool, headSha: str(),
  }, ['environmentId', 'environment', 'number', 'previewEnvironment', 'open', 'headSha']), { description: 'pull_request events: the previews stored and queued' }),
}, ['success', 'ignored', 'matched', 'sources']);

/** Verifies the delivery before anything else is read (the route's `load`): 401 unless it is signed with CODEHOST_WEBHOOK_SECRET. */
const verified = (s: Services) => async (ctx: Ctx): Promise<{ host: CodeHost }> => {
  let raw = ctx.request.rawBody;
  if (raw === undefined) {
    raw = await getRawBody(ctx.req, { limit: '1mb' });
    ctx.request.rawBody = raw;
    try {
      const text = raw.toString('utf8');
      ctx.request.body = ctx.request.type === 'application/x-www-form-urlencoded' ? JSON.parse(new URLSearchParams(text).get('payload') ?? 'null') : JSON.parse(text);
    } catch {
      ctx.request.body = undefined;
    }
  }
  const v = verifyGitWebhook(s.config.codehostWebhookSecret, raw, ctx.headers);
  if ('refused' in v) throw unauthorized(v.refused);
  return v;
};

/** Push webhooks of GitHub, GitLab and Gitea: the environments' Git sources of that repository and ref are synced at once. */
export default function gitWebhookRoutes(s: Services) {
  /**
   * A pull_request delivery (GitHub's payload; Gitea's has the same shape): every source of the
   * base repository and branch with previews.pullRequests stores the preview it asks for (opened,
   * synchronize and reopened: its head; closed: its teardown) before the 202, and queues it.
   */
  const pullRequest = async (ctx: Ctx, host: CodeHost) => {
    const none = (reason: string) => result(200, { success: true, ignored: true, reason, host, matched: 0, sources: [], previews: [] });
    const pr = pullRequestOf(ctx.request.body);
    if (!pr) return none('not a pull request action previews follow (opened, synchronize, reopened, closed)');
    const keys = new Set(pr.repositoryUrls.map(repositoryKey));
    const matched = (await s.gitSources.listAll()).filter((r) => r.previews?.pullRequests && keys.has(repositoryKey(r.url))
      && refMatches(r.ref, { ref: pr.baseRef, defaultBranch: pr.defaultBranch, repositoryUrls: pr.repositoryUrls, commit: null }));
    if (!matched.length) return none('no source of this repository and branch builds pull request previews');
    const previews = [];
    for (const r of matched) {
      // stored before the 202: a controller that dies now finds the preview asked for when it starts again
      const row = await requestPreview(s, r, pr);
      if (!row) continue;
      const environment = (await s.environments.findById(r.environmentId))?.name ?? '';
      previews.push({ environmentId: r.environmentId, environment, number: pr.number, previewEnvironment: previewEnvironmentName(environment, pr.number), open: row.open, headSha: row.headSha });
    }
    if (!previews.length) return none(`pull request #${pr.number} has no preview to close`);
    await s.audit.record({
      actorType: 'webhook', actorName: ctx.path, action: 'webhookGitPullRequest', resourceType: 'manifests', resourceId: null, environmentId: null,
      details: { source: 'webhook', host, action: pr.action, number: pr.number, headSha: pr.headSha, environments: previews.map((x) => x.environment) },
      requestId: ctx.state.requestId, ip: ctx.state.clientIp,
    });
    return result(202, { success: true, ignored: false, host, matched: previews.length, sources: [], previews });
  };
  return [
    route<unknown, unknown, { host: CodeHost }>({
      method: 'POST', path: '/api/webhooks/git', operationId: 'webhookGitPush', tag: 'webhooks', access: 'public', status: 202,
      summary: 'Push events of GitHub (X-Hub-Signature-256), GitLab (X-Gitlab-Token) and Gitea (X-Gitea-Signature), with CODEHOST_WEBHOOK_SECRET: '
        + 'every Git source of the pushed repository and ref is fetched and applied at once (the sync asked for is stored before the answer); '
        + 'pull_request events (opened, synchronize, reopened, closed) make, update and remove the previews of sources with previews.pullRequests',
      description: 'Fails closed: 401 when the secret is not configured, the header is missing or does not match. '
        + 'Repositories are matched by host and path whatever the URL\'s form (https, ssh, git@host:path); a source without a ref follows the default branch. '
        + 'Answers 202 once the sync of each source is stored and queued (a restart or another replica runs it if this process dies) (the sources\' status shows their outcome); 200 with ignored: true for other events.',
      load: verified(s), errors: [401], response: answer,
      alsoAnswers: { 200: { description: 'Not a push (ping and other events), or no source follows this repository and ref', response: answer } },
      async handler(ctx, { resource: { host } }) {
        ctx.state.audit = { skip: true };
        const event = eventOf(host, ctx.headers);
        const none = (reason: string) => result(200, { success: true, ignored: true, reason, host, matched: 0, sources: [] });
        if (event === 'pull_request') return pullRequest(ctx, host);
        if (event !== 'push') return none(`event ${event} does not sync`);
        const push = pushOf(ctx.request.body);
        if (!push) return none('the payload names no ref');
        const keys = new Set(push.repositoryUrls.map(repositoryKey));
        const matched = (await s.gitSources.listAll()).filter((r) => keys.has(repositoryKey(r.url)) && refMatches(r.ref, push));
        if (!matched.length) return none('no source follows this repository and ref');
        const sources = [];
        for (const r of matched) {
          // stored before the 202: a controller that dies now finds the sync asked for when it starts again
          await requestSync(s, r.id, 'webhook', push.commit);
          sources.push({ environmentId: r.environmentId, environment: (await s.environments.findById(r.environmentId))?.name ?? '' });
        }
        await s.audit.record({
          actorType: 'webhook', actorName: ctx.path, action: 'webhookGitPush', resourceType: 'manifests', resourceId: null, environmentId: null,
          details: { source: 'webhook', host, ref: push.ref, environments: sources.map((x) => x.environment) }, requestId: ctx.state.requestId, ip: ctx.state.clientIp,
        });
        return result(202, { success: true, ignored: false, host, matched: sources.length, sources });
      },
    }),
  ];
}
