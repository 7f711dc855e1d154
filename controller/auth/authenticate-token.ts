import type { Actor } from './actor.js';
import { minRole } from './policy.js';
import { API_TOKEN_PREFIX, sha256Hex } from '../crypto/api-token.js';
import { verifyJwt, type JwtClaims } from './jwt.js';
import type { UsersRepository } from '../store/repositories/users.js';
import type { ApiTokensRepository } from '../store/repositories/api-tokens.js';
import type { EnvironmentMembersRepository } from '../store/repositories/environment-members.js';

export interface TokenAuthDeps {
  jwtSecret: string;
  users: UsersRepository;
  apiTokens: ApiTokensRepository;
  environmentMembers: EnvironmentMembersRepository;
}

const TOUCH_EVERY_MS = 60_000;
const lastTouched = new Map<string, number>();

/**
 * A short cache of resolved tokens, keyed by the token's SHA-256 (no bearer secret kept as a
 * key): a busy client would otherwise cost a database round trip per request just to learn who
 * it is. Every change to users, tokens or service accounts made through this process clears it at
 * once (clearAuthCache); another replica sees such a change within CACHE_MS. Concurrent requests
 * with the same uncached token share one resolution instead of each verifying and querying.
 */
const CACHE_MS = 2_000;
const CACHE_MAX = 10_000;
const cache = new Map<string, { actor: Actor; until: number; expiresAt: number | null }>();
const inFlight = new Map<string, Promise<Resolved | null>>();

/**
 * JWT signatures already checked, by token hash, until the token's own expiry: verifying one
 * costs ~370 µs (jsonwebtoken), and the claims of a token never change. What can change (the
 * user's token version, role, existence) is still read from the database every CACHE_MS, so a
 * revocation (password or role change bumps the version) is not delayed by this cache.
 */
const verified = new Map<string, JwtClaims>();

/** Forgets every cached token resolution: call after revoking, disabling, deleting or re-roling. */
export function clearAuthCache(): void {
  cache.clear();
  inFlight.clear();
  cacheGeneration++;
}
// A resolution that started before a clear must not be cached after it.
let cacheGeneration = 0;

interface Resolved { actor: Actor; expiresAt: number | null }

/** The cache key of a token (its SHA-256): `key` of authenticateToken. */
export const tokenKey = (token: string): string => sha256Hex(token);

/**
 * Resolves a bearer token to the actor it stands for, or null when it is not valid (any reason).
 * A token resolved within CACHE_MS comes back as the actor itself, not a promise: the request
 * that finds it need not wait a turn of the event loop.
 */
export function authenticateToken(deps: TokenAuthDeps, token: string, key = tokenKey(token)): Actor | Promise<Actor | null> {
  const now = Date.now();
  const hit = cache.get(key);
  if (hit && hit.until > now && (hit.expiresAt === null || hit.expiresAt > now)) return hit.actor;
  return resolveShared(deps, token, key, now);
}

async function resolveShared(deps: TokenAuthDeps, token: string, key: string, now: number): Promise<Actor | null> {
  let pending = inFlight.get(key);
  if (!pending) {
    const generation = cacheGeneration;
    pending = resolveToken(deps, token, key).then((resolved) => {
      if (resolved && generation === cacheGeneration) {
        if (cache.size >= CACHE_MAX) cache.clear();
        cache.set(key, { actor: resolved.actor, until: now + CACHE_MS, expiresAt: resolved.expiresAt });
      }
      return resolved;
    }).finally(() => {
      if (inFlight.get(key) === pending) inFlight.delete(key);
    });
    inFlight.set(key, pending);
  }
  return (await pending)?.actor ?? null;
}

function verifiedClaims(secret: string, token: string, key: string): JwtClaims | null {
  const known = verified.get(key);
  if (known && known.exp * 1000 > Date.now()) return known;
  const claims = verifyJwt(secret, token);
  if (claims) {
    if (verified.size >= CACHE_MAX) verified.clear();
    verified.set(key, claims);
  }
  return claims;
}

async function resolveToken(deps: TokenAuthDeps, token: string, hash: string): Promise<Resolved | null> {
  if (token.startsWith(API_TOKEN_PREFIX)) {
    const row = await deps.apiTokens.findByHashWithOwner(hash);
    if (!row || row.revokedAt || row.ownerDisabled) return null;
    if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return null;
    // last_used_at is informative; writing it on every request would cost a write per read.
    const now = Date.now();
    if ((lastTouched.get(row.id) ?? 0) + TOUCH_EVERY_MS < now) {
      lastTouched.set(row.id, now);
      void deps.apiTokens.touch(row.id).catch(() => {});
    }
    const actor: Actor = {
      type: row.ownerUserId ? 'user' : 'service_account',
      id: (row.ownerUserId ?? row.ownerServiceAccountId)!,
      name: row.ownerName,
      role: minRole(row.ownerRole, row.role),
      tokenType: 'api_token',
      tokenId: row.id,
      environmentIds: row.environmentIds,
      environmentRoles: row.ownerEnvironmentRoles ?? {},
    };
    return { actor, expiresAt: row.expiresAt ? row.expiresAt.getTime() : null };
  }
  const claims = verifiedClaims(deps.jwtSecret, token, hash);
  if (!claims) return null;
  // both in one round trip's time: the memberships are read whether or not the user still exists
  const [user, environmentRoles] = await Promise.all([deps.users.findById(claims.sub), deps.environmentMembers.rolesOf(claims.sub)]);
  if (!user || user.tokenVersion !== claims.ver) return null;
  return {
    actor: { type: 'user', id: user.id, name: user.email, role: user.role, tokenType: 'jwt', tokenId: null, environmentIds: null, environmentRoles },
    expiresAt: claims.exp ? claims.exp * 1000 : null,
  };
}
