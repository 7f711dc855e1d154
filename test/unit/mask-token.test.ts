import { expect } from 'chai';
import { maskToken } from '../../controller/settings/system-settings.js';

describe('maskToken', () => {
  it('shows at most a four-character prefix of a long token, then asterisks', () => {
    expect(maskToken('ghp_abcdefghijklmnop')).to.equal('ghp_****');
  });
  it('shows nothing of a short token, so a guessable secret is not half revealed', () => {
    expect(maskToken('short')).to.equal('****');
    expect(maskToken('elevenchars')).to.equal('****');
  });
  it('keeps null for no token', () => {
    expect(maskToken(null)).to.equal(null);
  });
});
