// Which user an identity of the OpenID provider signs in as: the one place that decides it.
//   - An identity is its issuer + subject (`sub`). Once bound to a user it signs in as that user,
//     whatever e-mail the provider sends later.
//   - An e-mail alone never makes an identity an existing user: it links to an account only
//     when the admin allowed it (OIDC_LINK_BY_EMAIL) and the provider says `email_verified: true`
//     (the boolean; "false", "true" or nothing are not), and never to a user already bound to
//     another identity of this issuer. Otherwise the sign-in is refused, with no session. (A user
//     bound at another issuer only may be linked so: the way to move users to a new provider.)
//   - The role claim sets the role of users single sign-on made; a local account keeps its own
//     (unless OIDC_ROLE_FOR_LINKED_USERS).
//   - A user single sign-on made before identities were stored kept its subject as
//     `oidc:<sub>` in the password column: that subject, and only it, binds on its next sign-in.
import type { Services } from '../services.js';
import type { UserRow } from '../store/repositories/users.js';
import type { Role } from './actor.js';
import type { OidcIdentity } from './oidc.js';
import { roleFromClaims, type OidcConfig } from './oidc-config.js';

/** A sign-in refused: the reason is shown to the person on the sign-in page. */
export class SignInRefused extends Error {}

export type SignInPlan =
  | { action: 'signIn'; user: UserRow; role: Role; bind: boolean }
  | { action: 'create'; role: Role }
  | { action: 'refuse'; reason: string };

/** What the store holds about an identity: the user bound to it, else the user of its e-mail and the identities bound to that user. */
export interface KnownUsers { bound?: UserRow; sameEmail?: UserRow; sameEmailIdentities?: Array<{ issuer: string; subject: string }> }

type Policy = Pick<OidcConfig, 'roleClaim' | 'roleMap' | 'defaultRole' | 'linkByEmail' | 'roleForLinkedUsers'>;

const LEGACY_PREFIX = 'oidc:';
const shown = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v));

/** The decision, from the identity and what the store holds (pure). */
export function planSignIn(identity: OidcIdentity, known: KnownUsers, c: Policy): SignInPlan {
  const claimed = roleFromClaims(identity.claims, c);
  const refuse = (reason: string): SignInPlan => ({ action: 'refuse', reason });
  if (!claimed) return refuse(`${identity.email ?? identity.subject} holds none of the groups that give a role here`);
  const roleOf = (u: UserRow) => (u.origin === 'sso' || c.roleForLinkedUsers ? claimed : u.role);
  if (known.bound) return { action: 'signIn', user: known.bound, role: roleOf(known.bound), bind: false };

  const email = identity.email;
  if (!email) return refuse('the provider sent no e-mail address for this account (scope "email")');
  const stated = identity.claims.email_verified;
  const verified = stated === true;
  const user = known.sameEmail;
  if (!user) {
    // a new user: the e-mail is only a name here, but not one the provider calls unverified
    if (stated !== undefined && !verified) return refuse(`the provider says ${email} is not verified (email_verified: ${shown(stated)})`);
    return { action: 'create', role: claimed };
  }
  const bindings = known.sameEmailIdentities ?? [];
  // made by single sign-on before identities were stored: bound to the subject it was made from
  const legacySubject = !bindings.length && user.origin === 'sso' && user.passwordHash.startsWith(LEGACY_PREFIX) ? user.passwordHash.slice(LEGACY_PREFIX.length) : undefined;
  if (legacySubject === identity.subject) return { action: 'signIn', user, role: claimed, bind: true };
  if (legacySubject !== undefined || bindings.some((b) => b.issuer === identity.issuer)) {
    return refuse(`the user ${email} here is bound to another account of the provider; this one cannot sign in as them`);
  }
  if (!c.linkByEmail) {
    return refuse(`an account with the e-mail ${email} already exists here and is not linked to this account of the provider: sign in with its password (an administrator may allow linking by a verified e-mail, OIDC_LINK_BY_EMAIL)`);
  }
  if (!verified) return refuse(`${email} is not verified at the provider (email_verified: ${shown(stated)}; linking to an existing account needs true)`);
  return { action: 'signIn', user, role: roleOf(user), bind: true };
}

/**
 * Signs the identity in: reads what the store holds, decides (`planSignIn`), and creates, binds
 * or updates the user in one transaction. Throws `SignInRefused` with the reason.
 */
export async function signInWithOidc(s: Pick<Services, 'transaction' | 'users' | 'userIdentities'>, identity: OidcIdentity, c: Policy): Promise<{ user: UserRow; created: boolean; linked: boolean }> {
  const { issuer, subject } = identity;
  return s.transaction(async (trx) => {
    const bound = await s.userIdentities.userOf(issuer, subject, trx);
    const sameEmail = !bound && identity.email ? await s.users.findByEmail(identity.email, trx) : undefined;
    const sameEmailIdentities = sameEmail ? await s.userIdentities.ofUser(sameEmail.id, trx) : undefined;
    const plan = planSignIn(identity, { bound, sameEmail, sameEmailIdentities }, c);
    if (plan.action === 'refuse') throw new SignInRefused(plan.reason);
    if (plan.action === 'create') {
      const user = await s.users.insert({ email: identity.email!, name: identity.name, role: plan.role, passwordHash: `${LEGACY_PREFIX}${subject}`, origin: 'sso' }, trx);
      await s.userIdentities.bind(user.id, issuer, subject, trx);
      return { user, created: true, linked: false };
    }
    const user = plan.user.role === plan.role ? plan.user : (await s.users.update(plan.user.id, { role: plan.role }, trx))!;
    if (plan.bind) await s.userIdentities.bind(user.id, issuer, subject, trx);
    else await s.userIdentities.recordLogin(issuer, subject, trx);
    return { user, created: false, linked: plan.bind };
  });
}
