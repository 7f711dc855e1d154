import { expect } from 'chai';
import { planSignIn, type KnownUsers } from '../../../controller/auth/oidc-sign-in.js';
import type { OidcIdentity } from '../../../controller/auth/oidc.js';
import type { UserRow } from '../../../controller/store/repositories/users.js';

// The decision alone; the same cases against a real provider and PostgreSQL: test/api/sso.test.ts.
describe('which user an identity of the provider signs in as (planSignIn)', () => {
  const policy = {
    roleClaim: 'groups', roleMap: [{ value: 'admins', role: 'admin' as const }, { value: 'ops', role: 'operator' as const }], defaultRole: 'viewer' as 'viewer' | null,
    linkByEmail: false, roleForLinkedUsers: false,
  };
  const linking = { ...policy, linkByEmail: true };
  const user = (o: Partial<UserRow>) => ({ id: 'u1', email: 'a@example.test', role: 'admin', origin: 'local', passwordHash: 'scrypt$…', ...o }) as UserRow;
  const identity = (claims: Record<string, unknown>, subject = 'sub-1'): OidcIdentity => ({
    issuer: 'https://idp.example.test', subject, email: typeof claims.email === 'string' ? claims.email : null, name: null, claims: { sub: subject, ...claims },
  });
  const plan = (claims: Record<string, unknown>, known: KnownUsers, c = policy, subject?: string) => planSignIn(identity(claims, subject), known, c);

  it('signs a bound identity in as its user whatever e-mail comes, the role from the claim only for users SSO made', () => {
    const sso = user({ origin: 'sso', role: 'operator' });
    expect(plan({ email: 'other@example.test', groups: ['admins'] }, { bound: sso })).to.deep.include({ action: 'signIn', user: sso, role: 'admin', bind: false });
    const local = user({});
    expect(plan({ groups: [] }, { bound: local })).to.deep.include({ action: 'signIn', role: 'admin' });
    expect(plan({ groups: [] }, { bound: local }, { ...policy, roleForLinkedUsers: true })).to.deep.include({ action: 'signIn', role: 'viewer' });
  });

  it('refuses an identity whose groups give no role when the default is none', () => {
    expect(plan({ email: 'a@example.test', groups: ['x'] }, {}, { ...policy, defaultRole: null })).to.deep.equal({ action: 'refuse', reason: 'a@example.test holds none of the groups that give a role here' });
  });

  it('creates a user for a new e-mail unless the provider calls it unverified in any form', () => {
    expect(plan({ email: 'n@example.test', groups: ['ops'] }, {})).to.deep.equal({ action: 'create', role: 'operator' });
    expect(plan({ email: 'n@example.test', email_verified: true }, {})).to.deep.equal({ action: 'create', role: 'viewer' });
    for (const v of [false, 'false', 'true', 0]) expect(plan({ email: 'n@example.test', email_verified: v }, {}).action, String(v)).to.equal('refuse');
    expect(plan({}, {})).to.deep.include({ action: 'refuse' });
  });

  it('never signs in as an existing user by e-mail unless linking is on and email_verified is the boolean true', () => {
    const local = user({});
    for (const v of [true, false, 'false', undefined]) {
      expect(plan({ email: local.email, email_verified: v, groups: ['admins'] }, { sameEmail: local }).action).to.equal('refuse');
    }
    for (const v of [false, 'false', 'true', undefined, 1]) {
      const p = plan({ email: local.email, email_verified: v }, { sameEmail: local }, linking);
      expect(p, String(v)).to.deep.include({ action: 'refuse' });
      expect((p as { reason: string }).reason).to.match(/not verified/);
    }
    const viewer = user({ role: 'viewer' });
    expect(plan({ email: viewer.email, email_verified: true, groups: ['admins'] }, { sameEmail: viewer }, linking)).to.deep.include({ action: 'signIn', role: 'viewer', bind: true });
    expect(plan({ email: local.email, email_verified: true, groups: [] }, { sameEmail: local }, linking)).to.deep.include({ action: 'signIn', role: 'admin', bind: true });
    expect(plan({ email: local.email, email_verified: true, groups: [] }, { sameEmail: local }, { ...linking, roleForLinkedUsers: true })).to.deep.include({ action: 'signIn', role: 'viewer' });
  });

  it('never links a second identity to a user already bound to one of this provider', () => {
    const sso = user({ origin: 'sso', passwordHash: 'oidc:sub-1' });
    const here = [{ issuer: 'https://idp.example.test', subject: 'sub-1' }];
    expect(plan({ email: sso.email, email_verified: true }, { sameEmail: sso, sameEmailIdentities: here }, linking, 'sub-2').action).to.equal('refuse');
    expect(plan({ email: sso.email, email_verified: true }, { sameEmail: sso, sameEmailIdentities: here }, policy, 'sub-2').action).to.equal('refuse');
  });

  it('links a user bound at another issuer only as any account is linked: the way to a new provider', () => {
    const moved = user({ origin: 'sso', role: 'viewer', passwordHash: 'oidc:old-sub' });
    const elsewhere = [{ issuer: 'https://old-idp.example.test', subject: 'old-sub' }];
    expect(plan({ email: moved.email, email_verified: true, groups: ['ops'] }, { sameEmail: moved, sameEmailIdentities: elsewhere }).action).to.equal('refuse');
    expect(plan({ email: moved.email, groups: ['ops'] }, { sameEmail: moved, sameEmailIdentities: elsewhere }, linking).action).to.equal('refuse');
    expect(plan({ email: moved.email, email_verified: true, groups: ['ops'] }, { sameEmail: moved, sameEmailIdentities: elsewhere }, linking, 'new-sub'))
      .to.deep.include({ action: 'signIn', role: 'operator', bind: true });
  });

  it('binds a user SSO made before identities were kept by the subject it was made from, and no other', () => {
    const legacy = user({ origin: 'sso', role: 'viewer', passwordHash: 'oidc:sub-1' });
    expect(plan({ email: legacy.email, groups: ['ops'] }, { sameEmail: legacy }, policy, 'sub-1')).to.deep.include({ action: 'signIn', role: 'operator', bind: true });
    expect(plan({ email: legacy.email, email_verified: true }, { sameEmail: legacy }, linking, 'sub-2').action).to.equal('refuse');
    // a local account whose password was never set by SSO is not a legacy one, whatever its hash says
    expect(plan({ email: legacy.email }, { sameEmail: { ...legacy, origin: 'local' } }, policy, 'sub-1').action).to.equal('refuse');
  });
});
