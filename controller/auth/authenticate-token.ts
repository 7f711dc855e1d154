import type { Actor } from '../../api/http/types.js';
import { minRole } from '../../api/http/scopes.js';
import { API_TOKEN_PREFIX, sha256Hex } from '../crypto/api-token.js';
import { verifyJwt } from './jwt.js';
import type { UsersRepository } from '../store/repositories/users.js';
import type { ApiTokensRepository } from '../store/repositories/api-tokens.js';

export interface TokenAuthDeps {
  jwtSecret: string;
  users: UsersRepository;
  apiTokens: ApiTokensRepository;
}

const TOUCH_EVERY_MS = 60_000;
const lastTouched = new Map<string, number>();

/** Resolves a bearer token to the actor it stands for, or null when it is not valid (any reason). */
export async function authenticateToken(deps: TokenAuthDeps, token: string): Promise<Actor | null> {
  if (token.startsWith(API_TOKEN_PREFIX)) {
    const row = await deps.apiTokens.findByHashWithOwner(sha256Hex(token));
    if (!row || row.revokedAt || row.ownerDisabled) return null;
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return null;
    // last_used_at is informative; writing it on every request would cost a write per read.
    const now = Date.now();
    if ((lastTouched.get(row.id) ?? 0) + TOUCH_EVERY_MS < now) {
      lastTouched.set(row.id, now);
      void deps.apiTokens.touch(row.id).catch(() => {});
    }
    return {
      type: row.ownerUserId ? 'user' : 'service_account',
      id: (row.ownerUserId ?? row.ownerServiceAccountId)!,
      name: row.ownerName,
      role: minRole(row.ownerRole, row.role),
      tokenType: 'api_token',
      tokenId: row.id,
      environmentIds: row.environmentIds,
    };
  }
  const claims = verifyJwt(deps.jwtSecret, token);
  if (!claims) return null;
  const user = await deps.users.findById(claims.sub);
  if (!user || user.tokenVersion !== claims.ver) return null;
  return { type: 'user', id: user.id, name: user.email, role: user.role, tokenType: 'jwt', tokenId: null, environmentIds: null };
}
