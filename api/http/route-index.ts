import Router, { type RouterMiddleware } from '@koa/router';
import type { RouteSpec } from './route.js';
import type { Ctx } from './types.js';

// The path segments the groups are keyed on: /api/<2>/<3>/<4>/… (the resource, and the
// sub-resource under an id).
const KEY_AT = [2, 4] as const; // two: the lookup below reads keys 0 and 1

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
  // one router per group, built when a request first needs it: the groups are finite (known literals, or null)
  const build = (count: number, requestKeys: (string | null)[]) => {
    const members = shapes.filter((s) => s.count === count && s.keys.every((k, i) => k === null || k === requestKeys[i])).map((s) => s.spec);
    if (!members.length) return null;
    const router = new Router();
    mount(router, members);
    return dispatchLayers(router) ?? router.routes();
  };
  // looked up by segment count, then by the key at each KEY_AT position: no string is built per request
  const literalsOf = (count: number) => KEY_AT.map((_, i) => literalsAt.get(`${count}|${i}`));
  const byCount = new Map<number, { literals: (Set<string> | undefined)[]; groups: Map<string | null, Map<string | null, RouterMiddleware | null>> }>();
  const keyAt = (segs: string[], i: number, literals: (Set<string> | undefined)[]) => {
    const s = segs[KEY_AT[i]];
    if (s === undefined || !literals[i]) return null;
    const lower = s.toLowerCase();
    return literals[i].has(lower) ? lower : null;
  };

  return function routeIndexMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const segs = segmentsOf(ctx.path);
    const count = segs.length;
    let shape = byCount.get(count);
    if (!shape) byCount.set(count, shape = { literals: literalsOf(count), groups: new Map() });
    const k0 = keyAt(segs, 0, shape.literals);
    const k1 = keyAt(segs, 1, shape.literals);
    let second = shape.groups.get(k0);
    if (!second) shape.groups.set(k0, second = new Map());
    let middleware = second.get(k1);
    if (middleware === undefined) second.set(k1, middleware = build(count, [k0, k1]));
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
  paramNames: Array<{ name: string }>;
  opts: { ignoreWildcardParameter?: string };
}

function plainParams(layer: RouteLayer, captures: string[], existing: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = { ...existing };
  for (let i = 0; i < captures.length; i++) {
    const name = layer.paramNames[i]?.name;
    if (name !== undefined && captures[i] && captures[i].length > 0) params[name] = captures[i];
  }
  return params;
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
      const captures = c.captures = layer.captures(path);
      c.params = captures.some((v) => v?.includes('%')) || layer.opts.ignoreWildcardParameter !== undefined
        ? layer.params(path, captures, c.params)
        // nothing to decode: what layer.params answers, without a decodeURIComponent in a try per value
        : plainParams(layer, captures, c.params);
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
