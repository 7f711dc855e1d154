import { unauthorized } from '../../controller/errors/app-error.js';
import { authenticateToken, tokenKey, type TokenAuthDeps } from '../../controller/auth/authenticate-token.js';
import type { Actor, Ctx } from '../http/types.js';

/**
 * Identifies the caller from "Authorization: Bearer …". It never refuses by itself: each route
 * decides (public routes ignore a bad token), so the 401 comes from the route's access check,
 * and so does a 503 when the token could not be checked at all.
 */
export function authenticate(deps: TokenAuthDeps) {
  const settle = async (ctx: Ctx, pending: Promise<Actor | null>) => {
    try {
      noteActor(ctx, await pending);
    } catch (err) {
      // the token could not be checked (the database is down): a route that needs the caller
      // fails with this error (a 503), a public one such as /health answers as it would
      ctx.state.authError = err;
    }
  };
  // The last Authorization header of each connection with its token and cache key: a keep-alive
  // client sends the same one on every request, and hashing it each time was the middleware's
  // largest cost. Only the key is reused: whether the token is still valid is asked every time.
  // Held with the socket (which holds the request's headers anyway) and dropped with it.
  const lastOf = new WeakMap<object, { header: string; token: string | null; key: string | null }>();
  // not async: a token resolved moments ago (authenticateToken's cache) costs no promise here
  return function authenticateMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const header = ctx.req.headers.authorization;
    if (!header) return next();
    const socket = ctx.req.socket as object | null;
    let last = socket ? lastOf.get(socket) : undefined;
    if (last?.header !== header) {
      const token = BEARER.exec(header)?.[1] ?? null;
      last = { header, token, key: token === null ? null : tokenKey(token) };
      if (socket) lastOf.set(socket, last);
    }
    if (last.token === null || last.key === null) {
      noteActor(ctx, null);
      return next();
    }
    let found: Actor | Promise<Actor | null>;
    try {
      found = authenticateToken(deps, last.token, last.key);
    } catch (err) {
      ctx.state.authError = err;
      return next();
    }
    if (!(found instanceof Promise)) {
      noteActor(ctx, found);
      return next();
    }
    return settle(ctx, found).then(next);
  };
}

const BEARER = /^Bearer\s+(\S+)$/i;

function noteActor(ctx: Ctx, actor: Actor | null): void {
  if (actor) ctx.state.actor = actor;
  else ctx.state.authError = unauthorized('The bearer token is invalid, expired or revoked');
}
