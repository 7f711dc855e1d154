import jwt from 'jsonwebtoken';
import type { Role } from './actor.js';

export interface JwtClaims {
  sub: string;
  role: Role;
  /** The user's token version when issued; a bump (password/role change) revokes the token. */
  ver: number;
  iat: number;
  exp: number;
}

export function issueJwt(secret: string, expiresIn: string, user: { id: string; role: Role; tokenVersion: number }) {
  const token = jwt.sign({ role: user.role, ver: user.tokenVersion }, secret, {
    algorithm: 'HS256', subject: user.id, expiresIn: expiresIn as jwt.SignOptions['expiresIn'],
  });
  const { exp } = jwt.decode(token) as JwtClaims;
  return { token, expiresAt: new Date(exp * 1000).toISOString() };
}

/**
 * Returns the claims, or null when the token is malformed, badly signed, expired, or never
 * expires: a token without `exp` (signed by hand, or by an older tool) would be valid forever.
 */
export function verifyJwt(secret: string, token: string): JwtClaims | null {
  try {
    const claims = jwt.verify(token, secret, { algorithms: ['HS256'] }) as JwtClaims;
    if (typeof claims.exp !== 'number' || !Number.isFinite(claims.exp)) return null;
    return typeof claims.sub === 'string' && typeof claims.ver === 'number' ? claims : null;
  } catch {
    return null;
  }
}
