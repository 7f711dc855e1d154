import { expect } from 'chai';
import { oidcConfigOf, roleFromClaims } from '../../../controller/auth/oidc-config.js';
import { ConfigError } from '../../../controller/config/parse-env.js';

describe('single sign-on settings and the role mapping', () => {
  const base = { OIDC_ISSUER: 'https://idp.example.test/realms/x', OIDC_CLIENT_ID: 'stevedore' };

  it('is off without OIDC_ISSUER and needs a client id with it', () => {
    expect(oidcConfigOf({})).to.equal(null);
    expect(() => oidcConfigOf({ OIDC_ISSUER: 'https://idp.example.test' })).to.throw(ConfigError, /OIDC_CLIENT_ID/);
    expect(() => oidcConfigOf({ ...base, OIDC_ISSUER: 'not a url' })).to.throw(ConfigError, /OIDC_ISSUER/);
  });

  it('reads the mapping, the default role and the callback URL', () => {
    const c = oidcConfigOf({ ...base, OIDC_ROLE_MAP: 'stevedore-admins=admin, ops=operator', STEVEDORE_PUBLIC_URL: 'https://deploy.example.test/' })!;
    expect(c.roleMap).to.deep.equal([{ value: 'stevedore-admins', role: 'admin' }, { value: 'ops', role: 'operator' }]);
    expect(c).to.include({ roleClaim: 'groups', defaultRole: 'viewer', redirectUrl: 'https://deploy.example.test/api/auth/oidc/callback', clientSecret: null });
    expect(oidcConfigOf({ ...base, OIDC_DEFAULT_ROLE: 'none' })!.defaultRole).to.equal(null);
    expect(oidcConfigOf(base)!.redirectUrl).to.equal(null);
    expect(() => oidcConfigOf({ ...base, OIDC_ROLE_MAP: 'x=root' })).to.throw(ConfigError, /"x=root"/);
    expect(() => oidcConfigOf({ ...base, OIDC_DEFAULT_ROLE: 'root' })).to.throw(ConfigError, /OIDC_DEFAULT_ROLE/);
  });

  it('links by e-mail and sets linked users\' roles only when told to', () => {
    expect(oidcConfigOf(base)).to.include({ linkByEmail: false, roleForLinkedUsers: false });
    expect(oidcConfigOf({ ...base, OIDC_LINK_BY_EMAIL: 'true', OIDC_ROLE_FOR_LINKED_USERS: '1' })).to.include({ linkByEmail: true, roleForLinkedUsers: true });
    expect(() => oidcConfigOf({ ...base, OIDC_LINK_BY_EMAIL: 'yes' })).to.throw(ConfigError, /OIDC_LINK_BY_EMAIL/);
  });

  it('gives the highest role any held value maps to, else the default (or none)', () => {
    const c = { roleClaim: 'groups', roleMap: [{ value: 'ops', role: 'operator' as const }, { value: 'admins', role: 'admin' as const }], defaultRole: 'viewer' as const };
    expect(roleFromClaims({ groups: ['ops', 'admins'] }, c)).to.equal('admin');
    expect(roleFromClaims({ groups: ['ops'] }, c)).to.equal('operator');
    expect(roleFromClaims({ groups: 'ops admins' }, c)).to.equal('admin');
    expect(roleFromClaims({ groups: ['marketing'] }, c)).to.equal('viewer');
    expect(roleFromClaims({}, c)).to.equal('viewer');
    expect(roleFromClaims({ groups: ['marketing'] }, { ...c, defaultRole: null })).to.equal(null);
    // a value is matched whole, never as a part
    expect(roleFromClaims({ groups: ['not-admins'] }, { ...c, defaultRole: null })).to.equal(null);
  });
});
