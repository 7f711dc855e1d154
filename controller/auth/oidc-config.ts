// Single sign-on settings, read from the environment: the provider (OIDC_ISSUER), this client
// (OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), where the provider sends users back (OIDC_REDIRECT_URL,
// default <STEVEDORE_PUBLIC_URL>/api/auth/oidc/callback), how a claim maps to a role, and what
// an identity of the provider may do to accounts it did not make (OIDC_LINK_BY_EMAIL,
// OIDC_ROLE_FOR_LINKED_USERS: both off by default).
import { ConfigError, parseBoolean } from '../config/parse-env.js';

export type Role = 'admin' | 'operator' | 'viewer';
const ROLES: Role[] = ['admin', 'operator', 'viewer'];

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string | null;
  /** Absolute URL of GET /api/auth/oidc/callback as the provider knows it; null: from the request's host. */
  redirectUrl: string | null;
  /** The claim holding a user's groups or roles (OIDC_ROLE_CLAIM, default "groups"). */
  roleClaim: string;
  /** Claim value → role (OIDC_ROLE_MAP "stevedore-admins=admin,ops=operator"); the highest match wins. */
  roleMap: Array<{ value: string; role: Role }>;
  /** A user none of whose values maps: this role, or null to refuse the sign-in (OIDC_DEFAULT_ROLE, default viewer; "none"). */
  defaultRole: Role | null;
  /**
   * An identity the provider says (`email_verified: true`, the boolean) holds the e-mail of an
   * existing local account may be bound to that account (OIDC_LINK_BY_EMAIL, default false:
   * such a sign-in is refused).
   */
  linkByEmail: boolean;
  /** The role claim also sets the role of local accounts linked to an identity (OIDC_ROLE_FOR_LINKED_USERS, default false). */
  roleForLinkedUsers: boolean;
}

export function oidcConfigOf(env: Record<string, string | undefined>): OidcConfig | null {
  if (!env.OIDC_ISSUER) return null;
  if (!env.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  let issuer: URL;
  try {
    issuer = new URL(env.OIDC_ISSUER);
  } catch {
    throw new ConfigError(`OIDC_ISSUER must be a URL (got ${JSON.stringify(env.OIDC_ISSUER)})`);
  }
  const roleMap = (env.OIDC_ROLE_MAP ?? '').split(',').map((x) => x.trim()).filter(Boolean).map((pair) => {
    const at = pair.lastIndexOf('=');
    const role = pair.slice(at + 1) as Role;
    if (at <= 0 || !ROLES.includes(role)) throw new ConfigError(`OIDC_ROLE_MAP: "${pair}" is not claim-value=admin|operator|viewer`);
    return { value: pair.slice(0, at), role };
  });
  const fallback = env.OIDC_DEFAULT_ROLE ?? 'viewer';
  if (fallback !== 'none' && !ROLES.includes(fallback as Role)) throw new ConfigError('OIDC_DEFAULT_ROLE must be admin, operator, viewer or none');
  const base = env.STEVEDORE_PUBLIC_URL?.replace(/\/+$/, '');
  return {
    issuer: issuer.href, clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET || null,
    redirectUrl: env.OIDC_REDIRECT_URL || (base ? `${base}/api/auth/oidc/callback` : null),
    roleClaim: env.OIDC_ROLE_CLAIM || 'groups', roleMap, defaultRole: fallback === 'none' ? null : fallback as Role,
    linkByEmail: parseBoolean('OIDC_LINK_BY_EMAIL', env.OIDC_LINK_BY_EMAIL, false),
    roleForLinkedUsers: parseBoolean('OIDC_ROLE_FOR_LINKED_USERS', env.OIDC_ROLE_FOR_LINKED_USERS, false),
  };
}

/** The role a user's claims give: the highest of the mapped values they hold, else the default. */
export function roleFromClaims(claims: Record<string, unknown>, c: Pick<OidcConfig, 'roleClaim' | 'roleMap' | 'defaultRole'>): Role | null {
  const raw = claims[c.roleClaim];
  const held = new Set((Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[\s,]+/) : []).map(String));
  const mapped = c.roleMap.filter((m) => held.has(m.value)).map((m) => m.role);
  return ROLES.find((r) => mapped.includes(r)) ?? c.defaultRole;
}
