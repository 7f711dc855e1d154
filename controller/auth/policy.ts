import { forbiddenRole, forbiddenScope, type AppError } from '../errors/app-error.js';
import { ROLE_RANK, type Actor, type Role, type Scope } from './actor.js';

/**
 * Who may do what: the one rule of rights (docs/security.md, issue 34). Every entrance asks it:
 * the route runner (api/http/authorize.ts) for each request, MCP (its tools replay requests, and
 * registration asks the same check), the event stream for each event it would send.
 *
 * A caller's right in an environment is the lower of their own (global) role and their
 * membership role there; an API token adds its role cap and its environment limits. Where a
 * request acts on the whole installation (users, tokens, service accounts, system settings,
 * memberships, register-host), the caller must hold the role in every environment: for the
 * admin role that is an *unrestricted admin*, lowered nowhere and limited to no environments.
 */

/** Where a request acts: some environments (by id), or the whole installation. */
export type Reach = 'installation' | readonly string[];

/** A user or a service account, as an identity a request creates, changes or acts as. */
export interface IdentityRef { type: 'user' | 'service_account'; id: string }

type Rights = Pick<Actor, 'role' | 'environmentIds' | 'environmentRoles'>;

/** Scopes by role (DECISIONS.md, Authentication). */
export function scopesFor(role: Role): Scope[] {
  const scopes: Scope[] = ['*:read'];
  if (role === 'operator' || role === 'admin') scopes.push('services:write');
  if (role === 'admin') scopes.push('admin:*', 'tokens:manage');
  return scopes;
}

export function minRole(a: Role, b: Role | null | undefined): Role {
  if (!b) return a;
  return ROLE_RANK[a] <= ROLE_RANK[b] ? a : b;
}

const atLeast = (have: Role, needed: Role) => ROLE_RANK[have] >= ROLE_RANK[needed];

/** The caller's role in one environment: their membership role there, capped by their own. */
export function roleIn(actor: Pick<Actor, 'role' | 'environmentRoles'>, environmentId: string): Role {
  return minRole(actor.role, actor.environmentRoles[environmentId]);
}

/** Whether a membership anywhere lowers the caller's role below their own. */
export function isLoweredSomewhere(actor: Pick<Actor, 'role' | 'environmentRoles'>): boolean {
  return Object.values(actor.environmentRoles).some((r) => !atLeast(r, actor.role));
}

/** The environments an environment-limited token may see, or null: every one. */
export const visibleEnvironmentIds = (actor: Rights): string[] | null => actor.environmentIds;

/** Whether the caller may see what happened in this environment (null: in none, the installation's own). */
export function maySee(actor: Rights, environmentId: string | null): boolean {
  if (actor.environmentIds === null) return true;
  return environmentId !== null && actor.environmentIds.includes(environmentId);
}

/**
 * The one rule: the refusal (FORBIDDEN_SCOPE outside a token's environments, FORBIDDEN_ROLE for
 * a role too low) when the caller does not hold `role` everywhere `reach` reaches, else null.
 */
export function refusal(actor: Rights, role: Role, reach: Reach): AppError | null {
  if (!atLeast(actor.role, role)) {
    return forbiddenRole(`This operation needs the ${role} role; yours is ${actor.role}`,
      actor.role === 'viewer' ? 'Ask an admin for an operator or admin role' : undefined);
  }
  if (reach === 'installation') {
    if (role === 'viewer') return null;
    if (actor.environmentIds !== null) {
      return forbiddenScope('This token is limited to some environments and this operation acts on the whole installation',
        'Use a token without environment limits');
    }
    const lowered = Object.values(actor.environmentRoles).find((r) => !atLeast(r, role));
    if (lowered) {
      return forbiddenRole(role === 'admin'
        ? 'This operation needs an unrestricted admin; your role is lowered in some environments'
        : `This operation needs the ${role} role in every environment; yours is ${lowered} in some`,
      'Ask an admin who holds the role everywhere');
    }
    return null;
  }
  for (const environmentId of reach) {
    if (!maySee(actor, environmentId)) return forbiddenScope('This token is not allowed to access this environment');
    const there = roleIn(actor, environmentId);
    if (!atLeast(there, role)) {
      return forbiddenRole(`This operation needs the ${role} role in this environment; yours there is ${there}`,
        'Ask an admin of this environment for a higher role');
    }
  }
  return null;
}

export const holds = (actor: Rights, role: Role, reach: Reach): boolean => refusal(actor, role, reach) === null;

/** An admin in every environment, with no environment limits: may act on the installation itself. */
export const isUnrestrictedAdmin = (actor: Rights): boolean => holds(actor, 'admin', 'installation');

export const isSelf = (actor: Pick<Actor, 'type' | 'id'>, who: IdentityRef): boolean => actor.type === who.type && actor.id === who.id;

/**
 * Creating or changing another identity or its credentials (its role, password, memberships,
 * tokens) needs an unrestricted admin: nobody hands out more than they hold everywhere it
 * reaches, and another identity's rights reach wherever that identity goes. 'anyone': the
 * request acts on every identity (a list of all tokens).
 */
export function identityRefusal(actor: Rights & Pick<Actor, 'type' | 'id'>, who: IdentityRef | 'anyone'): AppError | null {
  if (who !== 'anyone' && isSelf(actor, who)) return null;
  if (isUnrestrictedAdmin(actor)) return null;
  return forbiddenRole('Creating or changing another identity or its credentials needs an unrestricted admin (an admin lowered in no environment)',
    'Ask an admin who holds the admin role everywhere');
}
