import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { hmacHex, signBody, verifySignature } from '../../../controller/crypto/webhook-hmac.js';
import { constantTimeEqual } from '../../../controller/crypto/constant-time.js';
import { webhookHeaders } from '../../../controller/delivery/http-post.js';
import { verifyGitWebhook } from '../../../controller/webhooks/git-push.js';

describe('webhook signatures (one module, both ways)', () => {
  const body = Buffer.from('{"a":1}');
  // the expected value from the definition (RFC 2104 HMAC-SHA256), not from the module
  const hex = crypto.createHmac('sha256', 'k').update(body).digest('hex');

  it('signs as lowercase hex, and as sha256=<hex> for outgoing webhooks', () => {
    expect(hmacHex('k', body)).to.equal(hex);
    expect(hmacHex('k', '{"a":1}')).to.equal(hex);
    expect(signBody('k', body)).to.equal(`sha256=${hex}`);
    // RFC 4231 test case 2
    expect(hmacHex('Jefe', 'what do ya want for nothing?')).to.equal('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('verifies only the exact digest form, and nothing at all without a secret', () => {
    expect(verifySignature('k', body, hex, '')).to.equal(true);
    expect(verifySignature('k', body, 'sha256=' + hex, 'sha256=')).to.equal(true);
    expect(verifySignature('k', body, hex.toUpperCase(), '')).to.equal(false);
    expect(verifySignature('k', body, hex, 'sha256=')).to.equal(false);
    expect(verifySignature('k2', body, hex, '')).to.equal(false);
    expect(verifySignature('k', Buffer.from('{"a":2}'), hex, '')).to.equal(false);
    expect(verifySignature(null, body, hex, '')).to.equal(false);
    expect(verifySignature('', body, crypto.createHmac('sha256', '').update(body).digest('hex'), '')).to.equal(false);
    expect(verifySignature('k', body, undefined, '')).to.equal(false);
    expect(verifySignature('k', body, '', '')).to.equal(false);
  });

  it('refuses a signature of another length (shorter, longer, multibyte) with false, never a throw', () => {
    for (const [header, prefix] of [[hex.slice(0, -1), ''], [hex + '0', ''], ['sha256=' + hex + '0', 'sha256='], ['é'.repeat(64), ''], ['x', 'sha256='], ['x'.repeat(10_000), '']] as const) {
      expect(verifySignature('k', body, header, prefix), header.slice(0, 80)).to.equal(false);
    }
  });

  it('compares in constant time over digests of both sides, whatever their lengths', () => {
    expect(constantTimeEqual('abc', 'abc')).to.equal(true);
    expect(constantTimeEqual('abc', 'abd')).to.equal(false);
    expect(constantTimeEqual('abc', 'abcd')).to.equal(false);
    expect(constantTimeEqual('', '')).to.equal(true);
    expect(constantTimeEqual('é', 'e\u0301')).to.equal(false);
  });

  it('what the controller signs, the controller verifies: outgoing headers and incoming checks agree', () => {
    const sent = webhookHeaders('{"a":1}', 'k')['x-webhook-signature'];
    expect(verifySignature('k', body, sent, 'sha256=')).to.equal(true);
    expect(verifyGitWebhook('k', body, { 'x-hub-signature-256': sent, 'x-github-event': 'push' })).to.deep.equal({ host: 'github' });
    expect(verifyGitWebhook('k', body, { 'x-gitea-signature': hex, 'x-gitea-event': 'push' })).to.deep.equal({ host: 'gitea' });
    expect(verifyGitWebhook('k', body, { 'x-gitea-signature': hex.toUpperCase(), 'x-gitea-event': 'push' })).to.have.property('refused');
  });

  it('is the only place a webhook HMAC is computed or a secret compared', () => {
    // other keyed hashes are fingerprints, not signatures; compares of secrets go through constant-time.ts
    const allowed: Record<string, RegExp> = {
      'controller/crypto/webhook-hmac.ts': /createHmac/,
      'controller/crypto/constant-time.ts': /timingSafeEqual/,
      'controller/crypto/password.ts': /timingSafeEqual/, // a scrypt output against the stored one, same length by construction
      'controller/crypto/secret-box.ts': /createHmac/, // a sealed value's lookup fingerprint
      'controller/model/desired-container.ts': /createHmac/, // a keyed hash of rendered values, for the container's label
      'controller/config-files/config-sync.ts': /createHmac/, // a keyed content hash
      'reconcilers/service/revision-spec.ts': /createHmac/, // a secret's version name in revisions
    };
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) walk(rel);
        else if (rel.endsWith('.ts')) {
          const text = fs.readFileSync(path.join(root, rel), 'utf8');
          for (const word of ['createHmac', 'timingSafeEqual']) {
            if (text.includes(word) && !allowed[rel]?.test(word)) offenders.push(`${rel}: ${word}`);
          }
        }
      }
    };
    for (const dir of ['controller', 'reconcilers', 'api']) walk(dir);
    expect(offenders).to.deep.equal([]);
  });
});
