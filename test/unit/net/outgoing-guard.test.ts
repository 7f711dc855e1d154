import { expect } from 'chai';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import {
  addressBytes, allowedBy, forbiddenReason, OutgoingGuard, parseAllowEntry, refusalOf, type AllowRule,
} from '../../../controller/net/outgoing-guard.js';
import { s3Client } from '../../../controller/databases/storage/s3-store.js';

describe('outgoing guard: address classification', () => {
  it('refuses loopback, link-local and unspecified addresses of both families', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'], ['127.255.1.2', 'loopback'], ['::1', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
      ['169.254.169.254', 'link-local'], ['169.254.0.1', 'link-local'], ['fe80::1', 'link-local'], ['febf::1', 'link-local'],
      ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'],
    ];
    for (const [ip, reason] of cases) expect(forbiddenReason(ip), ip).to.equal(reason);
  });

  it('sees through IPv4-mapped IPv6 in every spelling', () => {
    for (const ip of ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:0001', '[::ffff:127.0.0.1]']) expect(forbiddenReason(ip), ip).to.equal('loopback');
    expect(forbiddenReason('::ffff:a9fe:a9fe')).to.equal('link-local');
    expect(addressBytes('::ffff:10.0.0.1')).to.deep.equal([10, 0, 0, 1]);
  });

  it('lets public, private-network and fleet addresses through, and refuses the controller\'s own', () => {
    for (const ip of ['10.250.0.5', '192.168.1.10', '8.8.8.8', '2001:db8::1', 'fec0::1', '128.0.0.1', '169.253.0.1']) expect(forbiddenReason(ip), ip).to.equal(null);
    expect(forbiddenReason('10.1.2.3', ['10.1.2.3', 'fe80::5'])).to.equal('own address');
    expect(forbiddenReason('::ffff:10.1.2.3', ['10.1.2.3'])).to.equal('own address');
    expect(forbiddenReason('10.1.2.4', ['10.1.2.3'])).to.equal(null);
  });
});

describe('outgoing guard: the allow-list', () => {
  it('reads host names, addresses and CIDRs, and refuses anything else', () => {
    expect(parseAllowEntry('Relay.Local.')).to.deep.equal({ host: 'relay.local' });
    expect(parseAllowEntry('127.0.0.1')).to.deep.equal({ net: [127, 0, 0, 1], bits: 32 });
    expect(parseAllowEntry('127.0.0.0/8')).to.deep.equal({ net: [127, 0, 0, 0], bits: 8 });
    expect(parseAllowEntry('::1')).to.include({ bits: 128 });
    expect(parseAllowEntry('fe80::/10')).to.include({ bits: 10 });
    for (const bad of ['127.0.0.1/33', '::1/129', 'a b', 'http://x', '10.0.0.0/x', '1.2.3.4/8/9', '', 'host/8', '-bad.example']) {
      expect(parseAllowEntry(bad), bad).to.equal(null);
    }
  });

  it('allows by host name (whatever it resolves to) or by an address inside a CIDR', () => {
    const rules = ['relay.internal', '127.0.0.0/8', 'fe80::/10'].map(parseAllowEntry) as AllowRule[];
    expect(allowedBy(rules, 'RELAY.internal', '169.254.1.1')).to.equal(true);
    expect(allowedBy(rules, 'x.example', '127.0.0.5')).to.equal(true);
    expect(allowedBy(rules, 'x.example', '::ffff:127.0.0.5')).to.equal(true);
    expect(allowedBy(rules, 'x.example', 'fe80::9')).to.equal(true);
    expect(allowedBy(rules, 'x.example', '169.254.169.254')).to.equal(false);
    expect(allowedBy(rules, 'x.example', '::1')).to.equal(false);
  });

  it('refuses a name when any one of its addresses is forbidden and not allowed', () => {
    expect(refusalOf('multi.example', ['93.184.216.34', '127.0.0.1'], [], [])).to.equal('multi.example resolves to a loopback address (127.0.0.1)');
    expect(refusalOf('multi.example', ['93.184.216.34', '127.0.0.1'], [parseAllowEntry('127.0.0.1')!], [])).to.equal(null);
    expect(refusalOf('public.example', ['93.184.216.34'], [], [])).to.equal(null);
  });

  it('says in plain words which kind of address it refused', () => {
    expect(refusalOf('10.250.6.1', ['10.250.6.1'], [], ['10.250.6.1'])).to.equal('10.250.6.1 resolves to an own address of the controller (10.250.6.1)');
    expect(refusalOf('meta.example', ['169.254.169.254'], [], [])).to.equal('meta.example resolves to a link-local address (169.254.169.254)');
    expect(refusalOf('zero.example', ['0.0.0.0'], [], [])).to.equal('zero.example resolves to an unspecified address (0.0.0.0)');
  });
});

describe('outgoing guard: connections resolve through it', () => {
  const guard = new OutgoingGuard(async () => []);
  const refusal = (p: Promise<unknown>) => p.then(() => null, (e: Error) => e);

  it('keeps the allow-list it last read while reading it fails (the database is away), and refuses before any was read', async () => {
    let down = false;
    const flaky = new OutgoingGuard(async () => { if (down) throw new Error('the database is not reachable'); return ['127.0.0.1']; });
    down = true;
    expect((await refusal(flaky.check('http://127.0.0.1:9/x')))?.message).to.equal('the database is not reachable');
    down = false;
    expect(await refusal(flaky.check('http://127.0.0.1:9/x'))).to.equal(null);
    down = true;
    expect(await refusal(flaky.check('http://127.0.0.1:9/x'))).to.equal(null);
  });

  it('fetch refuses a name resolving to loopback and an IP literal before connecting', async () => {
    for (const url of ['http://localhost:9/x', 'http://127.0.0.1:9/x', 'http://[::1]:9/']) {
      const err = await refusal(guard.fetch(url));
      expect(err?.name, url).to.equal('OutgoingRefused');
      expect(err?.message).to.include('loopback');
    }
  });

  it('the S3 client\'s own sockets go through the guard\'s lookup (a name resolving to loopback is refused)', async () => {
    const client = await s3Client({ endpoint: 'http://localhost:9', region: 'r', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true }, guard);
    const err = await refusal(client.send(new ListBucketsCommand({})));
    expect(err?.name).to.equal('OutgoingRefused');
  });
});
