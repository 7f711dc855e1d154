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
        middleware = dispatchLayers(router) ?? router.routes();
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

/** What @koa/router keeps of one route (its Layer): the same regular expression and parameter decoding. */
interface RouteLayer {
  path: string;
  name?: string;
  methods: string[];
  stack: Array<(ctx: Ctx, next: () => Promise<unknown>) => unknown>;
  match(path: string): boolean;
  captures(path: string): string[];
  params(path: string, captures: string[], existing?: Record<string, string>): Record<string, string>;
}

/**
 * A group's routes run as its router's own dispatch would run them (the layers matching the path
 * go to ctx.matched for allowedMethods; those of the method run in order, each with its params,
 * _matchedRoute and routerPath), without what that dispatch adds per request for features these
 * routes do not use: a host check, debug calls, a middleware chain composed anew. null when a
 * layer is not a plain route with one handler (then the router's own middleware is used).
 */
function dispatchLayers(router: Router): RouterMiddleware | null {
  const layers = router.stack as unknown as RouteLayer[];
  if (!layers.every((l) => l.methods.length > 0 && l.stack.length === 1)) return null;
  const dispatch = (ctx: Ctx, next: () => Promise<unknown>): unknown => {
    const path = ctx.path;
    const method = ctx.method.toUpperCase();
    const matched: RouteLayer[] = [];
    const run: RouteLayer[] = [];
    for (const layer of layers) {
      if (!layer.match(path)) continue;
      matched.push(layer);
      if (layer.methods.includes(method)) run.push(layer);
    }
    const c = ctx as Ctx & { matched?: RouteLayer[]; router?: Router; routeMatched?: boolean; captures?: string[]; routerPath?: string; routerName?: string; _matchedRoute?: string; _matchedRouteName?: string };
    if (c.matched) c.matched.push(...matched);
    else c.matched = matched;
    c.router = router;
    c.routeMatched = run.length > 0;
    const at = (i: number): unknown => {
      if (i === run.length) return next();
      const layer = run[i];
      c.captures = layer.captures(path);
      c.params = layer.params(path, c.captures, c.params);
      (c.request as { params?: Record<string, string> }).params = c.params;
      c.routerPath = c._matchedRoute = layer.path;
      c.routerName = layer.name || undefined;
      if (layer.name) c._matchedRouteName = layer.name;
      return layer.stack[0](ctx, () => Promise.resolve(at(i + 1)));
    };
    return at(0);
  };
  return dispatch as unknown as RouterMiddleware;
}
