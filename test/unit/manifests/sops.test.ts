import { expect } from 'chai';
import crypto from 'node:crypto';
import { parse, stringify } from 'yaml';
import { decryptLeaf, decryptTree, encryptLeaf, encryptTree, leafBytes, SopsError } from '../../../controller/manifests/sops/sops-tree.js';
import { dataKeyOf } from '../../../controller/manifests/sops/data-key.js';
import { ageKeyPair, sopsFile } from '../../support/sops-file.js';

const key = crypto.randomBytes(32);
const tree = { apiVersion: 'stevedore/v1', kind: 'Secret', metadata: { name: 'DB_PASSWORD', environment: 'prod' }, spec: { value: 'hunter2', n: 3, on: true, list: ['a', 'b'] } };

describe('SOPS files', () => {
  it('a leaf decrypts only with its own path as additional data', () => {
    const enc = encryptLeaf('hunter2', key, 'spec:value:');
    expect(enc).to.match(/^ENC\[AES256_GCM,data:.+,iv:.+,tag:.+,type:str\]$/);
    expect(decryptLeaf(enc, key, 'spec:value:')).to.equal('hunter2');
    expect(() => decryptLeaf(enc, key, 'spec:other:')).to.throw(SopsError);
    expect(decryptLeaf(encryptLeaf(3, key, 'a:'), key, 'a:')).to.equal(3);
    expect(decryptLeaf(encryptLeaf(false, key, 'a:'), key, 'a:')).to.equal(false);
  });

  it('hashes leaves as sops does: True/False, integers and strings as written', () => {
    expect(leafBytes(true).toString()).to.equal('True');
    expect(leafBytes(12).toString()).to.equal('12');
    expect(leafBytes(1.5).toString()).to.equal('1.5');
  });

  it('decrypts a tree and verifies its MAC over every value, encrypted or not', () => {
    const { body, mac } = encryptTree(tree, key, '2026-01-01T00:00:00Z', (p) => p[0] === 'spec');
    const doc = { ...body, sops: { lastmodified: '2026-01-01T00:00:00Z', mac, age: [{ recipient: 'r', enc: 'x' }] } };
    const out = decryptTree(structuredClone(doc), key);
    expect(out.tree).to.deep.equal(tree);
    expect(out.encrypted).to.deep.include(['spec', 'value']);
    // an unencrypted value changed after encryption: the MAC no longer matches
    const altered = structuredClone(doc) as any;
    altered.metadata.name = 'OTHER';
    expect(() => decryptTree(altered, key)).to.throw(SopsError, /MAC does not match/);
    // an encrypted value swapped for another path's: its path no longer decrypts it
    const swapped = structuredClone(doc) as any;
    swapped.spec.value = swapped.spec.list[0];
    expect(() => decryptTree(swapped, key)).to.throw(SopsError);
    // another lastmodified: the MAC does not decrypt
    expect(() => decryptTree({ ...structuredClone(doc), sops: { ...doc.sops, lastmodified: '2026-01-02T00:00:00Z' } }, key)).to.throw(SopsError, /MAC/);
  });

  it('opens the data key with the age identity of one of the recipients, and names them when none is', async () => {
    const mine = await ageKeyPair();
    const other = await ageKeyPair();
    const text = await sopsFile(tree, [other.recipient, mine.recipient]);
    const doc = parse(text);
    expect(stringify(doc)).to.not.include('hunter2');
    const k = await dataKeyOf(doc.sops, mine.identity);
    expect(decryptTree(doc, k).tree).to.deep.equal(tree);
    const stranger = await ageKeyPair();
    try {
      await dataKeyOf(doc.sops, stranger.identity);
      expect.fail('opened');
    } catch (e) {
      expect((e as Error).message).to.include(mine.recipient).and.include(other.recipient);
    }
  });
});
