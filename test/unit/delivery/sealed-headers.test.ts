import { expect } from 'chai';
import { SecretBox } from '../../../controller/crypto/secret-box.js';
import { maskHeaders, openHeaders, patchHeaders, sealHeaders } from '../../../controller/delivery/sealed-headers.js';

describe('sealed webhook headers', () => {
  const box = new SecretBox(Buffer.alloc(32, 3));

  it('seals every value, opens them back, and keeps a null (a removal) as null', () => {
    const sealed = sealHeaders(box, { Authorization: 'Bearer x-1', 'X-Gone': null });
    expect(sealed['X-Gone']).to.equal(null);
    expect(sealed.Authorization).to.match(/^v1:/).and.not.include('x-1');
    expect(openHeaders(box, { Authorization: sealed.Authorization! })).to.deep.equal({ Authorization: 'Bearer x-1' });
    expect(openHeaders(box, null)).to.deep.equal({});
  });

  it('masks a map to its names, each {set: true}', () => {
    expect(maskHeaders({ A: 'v1:abc', B: 'v1:def' })).to.deep.equal({ A: { set: true }, B: { set: true } });
    expect(maskHeaders(undefined)).to.deep.equal({});
  });

  it('patches: absent names stay, a value replaces one named in any case, null removes one', () => {
    const current = { Authorization: 'a', 'X-Team': 't', 'X-Old': 'o' };
    expect(patchHeaders(current, { 'x-team': 'T2', 'X-OLD': null, 'X-New': 'n' })).to.deep.equal({ Authorization: 'a', 'x-team': 'T2', 'X-New': 'n' });
    expect(patchHeaders(current, {})).to.deep.equal(current);
    expect(patchHeaders(null, { A: 'a', B: null })).to.deep.equal({ A: 'a' });
    expect(current, 'the stored map is not changed in place').to.deep.equal({ Authorization: 'a', 'X-Team': 't', 'X-Old': 'o' });
  });
});
