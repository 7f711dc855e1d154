import { unauthorized } from '../../controller/errors/app-error.js';
import { authenticateToken, type TokenAuthDeps } from '../../controller/auth/authenticate-token.js';
import type { Ctx } from '../http/types.js';

/**
 * Identifies the caller from "Authorization: Bearer …". It never refuses by itself: each route
 * decides (public routes ignore a bad token), so the 401 comes from the route's access check,
 * and so does a 503 when the token could not be checked at all.
 */
export function authenticate(deps: TokenAuthDeps) {
  return async function authenticateMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const header = ctx.get('Authorization');
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      try {
        const actor = m ? await authenticateToken(deps, m[1]) : null;
        if (actor) ctx.state.actor = actor;
        else ctx.state.authError = unauthorized('The bearer token is invalid, expired or revoked');
      } catch (err) {
        // the token could not be checked (the database is down): a route that needs the caller
        // fails with this error (a 503), a public one such as /health answers as it would
        ctx.state.authError = err;
      }
    }
    await next();
  };
}
