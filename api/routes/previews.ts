// An environment's preview environments per pull request (docs/git-sources.md#previews), as its
// viewers see them: what each runs, where it is reached and what state it is in.
import type { Services } from '../../controller/services.js';
import { previewEnvironmentName, previewExpiry, previewUrl } from '../../controller/manifests/git/preview-config.js';
import { route } from '../http/route.js';
import { enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { environmentOf } from './loaders.js';

const previewRead = object({
  number: int(1, undefined, { description: 'The pull request' }),
  branch: nullable(str({ description: 'The pull request\'s head branch' })),
  headSha: str({ description: 'The head commit the pull request names (the webhook\'s)' }),
  appliedCommit: nullable(str({ description: 'The commit applied into the preview (its refs/pull/<number>/head when fetched)' })),
  environmentId: nullable(uuid),
  environmentName: str({ description: '<env>-pr-<number>' }),
  url: nullable(str({ description: 'https:// and the host of previews.hostTemplate; null without one' })),
  state: enumOf('pending', 'ready', 'failed', 'deleting'),
  reason: nullable(str({ description: 'Why it is not ready: what it waits for, or why it failed' })),
  updatedAt: timestamp,
  expiresAt: { ...nullableTimestamp, description: 'When its TTL runs out (previews.ttlHours after the pull request last changed); null without one' },
}, ['number', 'branch', 'headSha', 'appliedCommit', 'environmentId', 'environmentName', 'url', 'state', 'reason', 'updatedAt', 'expiresAt']);

export default function previewRoutes(s: Services) {
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/previews', operationId: 'listPreviews', tag: 'manifests', access: 'viewer',
      load: environmentOf(s), query: paginationQuery, response: listOf(previewRead),
      summary: 'The environment\'s preview environments, one per open pull request of its Git source, by number',
      description: 'A preview is pending while it is made or updated and its plans run, ready once every plan of its commit succeeded, '
        + 'failed with the reason, deleting while a closed (or expired) one is torn down; a torn-down preview is no longer listed.',
      async handler(_ctx, { resource, query }) {
        const source = await s.gitSources.ofEnvironment(resource.id);
        const rows = await s.previews.ofEnvironment(resource.id);
        const all = rows.map((r) => ({
          number: r.number, branch: r.headRef, headSha: r.headSha, appliedCommit: r.appliedCommit, environmentId: r.previewEnvironmentId,
          environmentName: previewEnvironmentName(resource.name, r.number), url: previewUrl(source?.previews, r.number),
          state: r.open || r.state === 'deleting' ? r.state : 'deleting', reason: r.reason, updatedAt: r.updatedAt,
          expiresAt: r.open ? previewExpiry(source?.previews, r.desiredAt)?.toISOString() ?? null : null,
        }));
        return { items: all.slice(query.offset, query.offset + query.limit), total: all.length, limit: query.limit, offset: query.offset };
      },
    }),
  ];
}
