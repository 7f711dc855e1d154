import { unauthorized } from '../../controller/errors/app-error.js';
import { authenticateToken, type TokenAuthDeps } from '../../controller/auth/authenticate-token.js';
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
  // not async: a token resolved moments ago (authenticateToken's cache) costs no promise here
  return function authenticateMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const header = ctx.get('Authorization');
    if (!header) return next();
    const m = BEARER.exec(header);
    if (!m) {
      noteActor(ctx, null);
      return next();
    }
    let found: Actor | Promise<Actor | null>;
    try {
      found = authenticateToken(deps, m[1]);
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
