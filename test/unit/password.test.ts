import { expect } from 'chai';
import { DEFAULT_PASSWORD_HASH_COST, dummyPasswordHash, hashPassword, verifyPassword } from '../../controller/crypto/password.js';
import { loadConfig } from '../../controller/config/config.js';
import os from 'node:os';

describe('password hashing', () => {
  it('hashes with scrypt at the cost asked for, and verifies only the right password', async () => {
    const stored = await hashPassword('correct-horse-battery', 10);
    expect(stored).to.match(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct-horse-battery', stored)).to.equal(true);
    expect(await verifyPassword('correct-horse-batterY', stored)).to.equal(false);
  });

  it('the stand-in hash for an unknown account costs what a real one does', async () => {
    expect(dummyPasswordHash()).to.match(/^scrypt\$32768\$8\$1\$/);
    expect(dummyPasswordHash(10)).to.match(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('x', dummyPasswordHash(10))).to.equal(false);
  });

  it('PASSWORD_HASH_COST defaults to 15 and may only lower it, down to 10', () => {
    // keys given, so nothing is written to the state dir
    const cost = (value?: string) => loadConfig({ STEVEDORE_STATE_DIR: os.tmpdir(), SECRETS_KEY: Buffer.alloc(32).toString('base64'), JWT_SECRET: 'j', PASSWORD_HASH_COST: value }).passwordHashCost;
    expect(cost()).to.equal(DEFAULT_PASSWORD_HASH_COST);
    expect(cost('10')).to.equal(10);
    expect(() => cost('9')).to.throw(/PASSWORD_HASH_COST/);
    expect(() => cost('16')).to.throw(/PASSWORD_HASH_COST/);
  });
});
