import Router, { type RouterMiddleware } from '@koa/router';
import type { RouteSpec } from './route.js';
import type { Ctx } from './types.js';

// The path segments the groups are keyed on: /api/<2>/<3>/<4>/… (the resource, and the
// sub-resource under an id).
const KEY_AT = [2, 4] as const;

const segmentsOf = (path: string) => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');

/**
 * Dispatches to a router holding only the routes a request's path can match: @koa/router tests
 * every route's regular expression in turn (274 of them, ~20 µs of CPU per request). Routes are
 * grouped by segment count and by the literal segments at KEY_AT (a parameter there joins every
 * group of its count); each group keeps the declared order, so the first match is the same one.
 * A path no group holds gets `ctx.matched = []`, as the full router would leave it, so the full
 * router's allowedMethods still answers 501 for an unknown method.
 */
export function routeIndex(specs: RouteSpec[], mount: (router: Router, specs: RouteSpec[]) => void) {
  const literalsAt = new Map<string, Set<string>>(); // `${count}|${position}` → literal segments seen there
  const shapes = specs.map((spec) => {
    const segs = segmentsOf(spec.path);
    const keys = KEY_AT.map((at) => (segs[at] === undefined || segs[at].includes('{') ? null : segs[at].toLowerCase()));
    keys.forEach((k, i) => {
      if (k === null) return;
      const id = `${segs.length}|${i}`;
      if (!literalsAt.has(id)) literalsAt.set(id, new Set());
      literalsAt.get(id)!.add(k);
    });
    return { spec, count: segs.length, keys };
  });
  // one router per group, built when a request first needs it: the groups are finite (known literals, or '?')
  const groups = new Map<string, RouterMiddleware | null>();
  const groupOf = (key: string, count: number, requestKeys: (string | null)[]) => {
    let middleware = groups.get(key);
    if (middleware === undefined) {
      const members = shapes.filter((s) => s.count === count && s.keys.every((k, i) => k === null || k === requestKeys[i])).map((s) => s.spec);
      if (members.length) {
        const router = new Router();
        mount(router, members);
        middleware = router.routes();
      } else middleware = null;
      groups.set(key, middleware);
    }
    return middleware;
  };

  return function routeIndexMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const segs = segmentsOf(ctx.path);
    const requestKeys = KEY_AT.map((at, i) => {
      const s = segs[at]?.toLowerCase();
      return s !== undefined && literalsAt.get(`${segs.length}|${i}`)?.has(s) ? s : null;
    });
    const middleware = groupOf(`${segs.length}|${requestKeys.join('|')}`, segs.length, requestKeys);
    if (middleware) return middleware(ctx as never, next);
    (ctx as { matched?: unknown[] }).matched ??= [];
    return next();
  };
}
