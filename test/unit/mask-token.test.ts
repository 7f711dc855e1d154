import { expect } from 'chai';
import { maskToken } from '../../controller/settings/system-settings.js';
import { MASK } from '../../controller/crypto/redact.js';

describe('maskToken', () => {
  it('shows no character of a token, long or short, nor its length', () => {
    expect(maskToken('ghp_abcdefghijklmnop')).to.equal('****');
    expect(maskToken('short')).to.equal('****');
    expect(maskToken('x'.repeat(200))).to.equal(MASK);
  });
  it('keeps null for no token', () => {
    expect(maskToken(null)).to.equal(null);
  });
});
