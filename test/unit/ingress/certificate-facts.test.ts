import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chainFacts, renewalDue, retryDelaySec, splitChain, MAX_RETRY_SEC } from '../../../controller/ingress/acme/certificate-facts.js';
import { dueReason, PENDING_STALE_MS } from '../../../reconcilers/certificate/due.js';

const DAY = 86_400_000;

/** A self-signed certificate for `host` made by openssl, as a CA's leaf stands in here. */
function certificate(host: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cert-facts-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '90',
      '-subj', '/O=Example CA/CN=Example Intermediate R1', '-addext', `subjectAltName=DNS:${host}`,
      '-keyout', path.join(dir, 'k.pem'), '-out', path.join(dir, 'c.pem')], { stdio: 'ignore' });
    return fs.readFileSync(path.join(dir, 'c.pem'), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('certificate facts', () => {
  it('reads the leaf\'s issuer, names and expiry from a chain, leaf first', () => {
    const leaf = certificate('app.example.test');
    const other = certificate('other.example.test');
    const facts = chainFacts(`${leaf}${other}`);
    expect(splitChain(`${leaf}\n${other}`)).to.have.length(2);
    expect(facts.issuer).to.equal('Example CA, Example Intermediate R1');
    expect(facts.names).to.deep.equal(['app.example.test']);
    expect(facts.notAfter.getTime()).to.be.closeTo(Date.now() + 90 * DAY, DAY);
    expect(facts.serial).to.match(/^[0-9A-F]+$/);
    expect(() => chainFacts('not a certificate')).to.throw(/no PEM certificate/);
  });

  it('is due for renewal from renewBeforeDays before notAfter on', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    expect(renewalDue(new Date(now.getTime() + 31 * DAY), now, 30)).to.equal(false);
    expect(renewalDue(new Date(now.getTime() + 30 * DAY), now, 30)).to.equal(true);
    expect(renewalDue(new Date(now.getTime() - DAY), now, 30)).to.equal(true);
  });

  it('waits base, then twice as long after each failure, at most six hours', () => {
    expect([1, 2, 3, 4].map((n) => retryDelaySec(n, 60))).to.deep.equal([60, 120, 240, 480]);
    expect(retryDelaySec(30, 60)).to.equal(MAX_RETRY_SEC);
  });

  it('orders for a host with nothing, a due renewal, a retry whose wait passed, or a stale order; never twice at once', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    const row = (r: Partial<Parameters<typeof dueReason>[0] & object>) => ({ state: 'issued' as const, notAfter: null, nextAttemptAt: null, lastAttemptAt: null, ...r });
    expect(dueReason(undefined, now, 30)).to.equal('new');
    expect(dueReason(row({ state: 'none' }), now, 30)).to.equal('new');
    expect(dueReason(row({ notAfter: new Date(now.getTime() + 60 * DAY) }), now, 30)).to.equal(null);
    expect(dueReason(row({ notAfter: new Date(now.getTime() + 29 * DAY) }), now, 30)).to.equal('renewal');
    expect(dueReason(row({ state: 'failed', nextAttemptAt: new Date(now.getTime() + 1000) }), now, 30)).to.equal(null);
    expect(dueReason(row({ state: 'failed', nextAttemptAt: new Date(now.getTime() - 1000) }), now, 30)).to.equal('retry');
    expect(dueReason(row({ state: 'pending', lastAttemptAt: new Date(now.getTime() - 1000) }), now, 30)).to.equal(null);
    expect(dueReason(row({ state: 'pending', lastAttemptAt: new Date(now.getTime() - PENDING_STALE_MS - 1) }), now, 30)).to.equal('stale order');
  });
});
