import crypto from 'node:crypto';
import type { RouteSpec } from '../../api/http/route.js';

/**
 * Fills a route's path parameters for generic tests: {envId} and the id of /api/environments/{id}
 * with a real environment (environment-limited tokens hold it), named ids from `ids` when the
 * path's kind has a real fixture, {module} with a real settings module, anything else a random
 * uuid (the route answers 404 once it is allowed to look).
 */
export function concretePath(spec: RouteSpec, envId: string, ids: Record<string, string> = {}): string {
  const kind = /^\/api\/(?:admin\/)?([a-z-]+)\/\{id\}/.exec(spec.path)?.[1];
  return spec.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'envId') return envId;
    if (name === 'module') return 'general';
    if (name === 'id' && kind === 'environments') return spec.method === 'DELETE' ? crypto.randomUUID() : envId;
    if (name === 'id' && kind && ids[kind]) return ids[kind];
    return crypto.randomUUID();
  });
}
