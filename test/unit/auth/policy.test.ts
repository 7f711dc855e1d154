import { expect } from 'chai';
import { identityRefusal, isUnrestrictedAdmin, maySee, refusal, roleIn } from '../../../controller/auth/policy.js';
import type { Actor } from '../../../controller/auth/actor.js';

const actor = (over: Partial<Actor> = {}): Actor => ({
  type: 'user', id: 'u1', name: 'u1@example.test', role: 'admin', tokenType: 'jwt', tokenId: null,
  environmentIds: null, environmentRoles: {}, ...over,
});

describe('the one rule for rights (controller/auth/policy.ts)', () => {
  it('the right in an environment is the lower of the own role and the membership', () => {
    const a = actor({ role: 'operator', environmentRoles: { prod: 'viewer', staging: 'admin' } });
    expect(roleIn(a, 'prod')).to.equal('viewer');
    expect(roleIn(a, 'staging')).to.equal('operator');
    expect(roleIn(a, 'other')).to.equal('operator');
  });

  it('an admin lowered anywhere, capped or limited is no unrestricted admin', () => {
    expect(isUnrestrictedAdmin(actor())).to.equal(true);
    expect(isUnrestrictedAdmin(actor({ environmentRoles: { prod: 'viewer' } }))).to.equal(false);
    expect(isUnrestrictedAdmin(actor({ environmentRoles: { prod: 'operator' } }))).to.equal(false);
    expect(isUnrestrictedAdmin(actor({ environmentRoles: { prod: 'admin' } }))).to.equal(true);
    expect(isUnrestrictedAdmin(actor({ role: 'operator' }))).to.equal(false);
    expect(isUnrestrictedAdmin(actor({ environmentIds: ['prod'] }))).to.equal(false);
  });

  it('refuses with the code the contract names: FORBIDDEN_SCOPE outside a token\'s environments, FORBIDDEN_ROLE for a role too low', () => {
    const lowered = actor({ environmentRoles: { prod: 'viewer' } });
    expect(refusal(lowered, 'admin', ['staging'])).to.equal(null);
    expect(refusal(lowered, 'operator', ['prod'])?.code).to.equal('FORBIDDEN_ROLE');
    expect(refusal(lowered, 'admin', 'installation')?.message).to.match(/unrestricted admin/);
    expect(refusal(lowered, 'viewer', 'installation')).to.equal(null);
    const limited = actor({ environmentIds: ['staging'] });
    expect(refusal(limited, 'admin', ['staging'])).to.equal(null);
    expect(refusal(limited, 'viewer', ['prod'])?.code).to.equal('FORBIDDEN_SCOPE');
    expect(refusal(limited, 'operator', 'installation')?.code).to.equal('FORBIDDEN_SCOPE');
    expect(refusal(actor({ role: 'viewer' }), 'operator', [])?.code).to.equal('FORBIDDEN_ROLE');
  });

  it('another identity is an unrestricted admin\'s to change; one\'s own is not', () => {
    const lowered = actor({ environmentRoles: { prod: 'viewer' } });
    expect(identityRefusal(lowered, { type: 'user', id: 'u1' })).to.equal(null);
    expect(identityRefusal(lowered, { type: 'user', id: 'u2' })?.code).to.equal('FORBIDDEN_ROLE');
    expect(identityRefusal(lowered, { type: 'service_account', id: 'u1' })?.code).to.equal('FORBIDDEN_ROLE');
    expect(identityRefusal(lowered, 'anyone')?.code).to.equal('FORBIDDEN_ROLE');
    expect(identityRefusal(actor(), 'anyone')).to.equal(null);
  });

  it('an environment-limited token sees its environments\' events only, never the installation\'s', () => {
    expect(maySee(actor(), null)).to.equal(true);
    expect(maySee(actor({ environmentIds: ['staging'] }), 'staging')).to.equal(true);
    expect(maySee(actor({ environmentIds: ['staging'] }), 'prod')).to.equal(false);
    expect(maySee(actor({ environmentIds: ['staging'] }), null)).to.equal(false);
  });
});
