import { expect } from 'chai';
import { shannonEntropy } from '../../../controller/config-files/entropy.js';
import { scanContent, substitute, suggestKey } from '../../../controller/config-files/scanner.js';
import { assertTargetPath, fileModeFor } from '../../../controller/config-files/target-path.js';

describe('config scanner', () => {
  it('computes Shannon entropy in bits per character', () => {
    expect(shannonEntropy('')).to.equal(0);
    expect(shannonEntropy('aaaa')).to.equal(0);
    expect(shannonEntropy('abab')).to.equal(1);
    expect(shannonEntropy('abcd')).to.equal(2);
  });

  it('finds high-entropy values of at least the minimum length and skips low-entropy, short and placeholder values', () => {
    const content = 'password=Xk9#pQ2vLm7z\nmode=aaaaaaaa\nport=80\ntoken: "${TOKEN}"\napi_key = "Zr8uT1qW3eY5"\n';
    const found = scanContent(content, 'file-1', { minLength: 6, entropyThreshold: 25 });
    expect(found.map((f) => f.name)).to.deep.equal(['password', 'api_key']);
    expect(found[0]).to.include({ line: 1, column: 10, suggestedKey: 'PASSWORD', length: 12 });
    expect(content.slice(found[1].start, found[1].end)).to.equal('Zr8uT1qW3eY5');
    // the mask shows no character of the value (its length is the finding's own field)
    expect(found.map((f) => f.masked)).to.deep.equal(['****', '****']);
  });

  it('respects the entropy threshold and minimum length settings', () => {
    const content = 'secret=abcabc\n';
    expect(scanContent(content, 'f', { minLength: 6, entropyThreshold: 15 })).to.have.length(1);
    expect(scanContent(content, 'f', { minLength: 6, entropyThreshold: 15 })[0].entropy).to.be.closeTo(15.8, 0.05);
    expect(scanContent(content, 'f', { minLength: 6, entropyThreshold: 25 })).to.have.length(0);
    expect(scanContent(content, 'f', { minLength: 7, entropyThreshold: 0 })).to.have.length(0);
  });

  it('suggests keys from setting names and substitutes values by placeholders', () => {
    expect(suggestKey('db.password')).to.equal('DB_PASSWORD');
    expect(suggestKey('apiKey')).to.equal('API_KEY');
    expect(suggestKey('1st-token')).to.equal('_1ST_TOKEN');
    expect(substitute('a=XYZ\nb=XYZ\n', 'XYZ', 'K')).to.equal('a=${K}\nb=${K}\n');
  });
});

describe('target paths', () => {
  const bad = ['relative/path', '/etc/../passwd', '/etc/./x', '/etc//x', '/etc/x\u0000y', '/etc/dir/', ''];
  for (const p of bad) {
    it(`rejects ${JSON.stringify(p)} as a target path`, () => {
      expect(() => assertTargetPath(p)).to.throw().with.property('code', 'VALIDATION_ERROR');
    });
  }

  it('accepts an absolute normalised file path and gives .env files mode 0600', () => {
    expect(() => assertTargetPath('/etc/myapp/app.conf')).to.not.throw();
    expect(fileModeFor('/srv/app/.env', 0o644)).to.equal(0o600);
    expect(fileModeFor('/srv/app/prod.env', null)).to.equal(0o600);
    expect(fileModeFor('/srv/app/app.conf', null)).to.equal(0o644);
    expect(fileModeFor('/srv/app/app.conf', 0o640)).to.equal(0o640);
  });
});
