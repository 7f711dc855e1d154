import { unauthorized } from '../../controller/errors/app-error.js';
import { authenticateToken, type TokenAuthDeps } from '../../controller/auth/authenticate-token.js';
import type { Ctx } from '../http/types.js';

/**
 * Identifies the caller from "Authorization: Bearer …". It never refuses by itself: each route
 * decides (public routes ignore a bad token), so the 401 comes from the route's access check.
 */
export function authenticate(deps: TokenAuthDeps) {
  return async function authenticateMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    const header = ctx.get('Authorization');
    if (header) {
      const m = /^Bearer\s+(\S+)$/i.exec(header);
      const actor = m ? await authenticateToken(deps, m[1]) : null;
      if (actor) ctx.state.actor = actor;
      else ctx.state.authError = unauthorized('The bearer token is invalid, expired or revoked');
    }
    await next();
  };
}
