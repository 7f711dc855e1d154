// A certificate from Pebble (Let's Encrypt's test CA, validation on) for app.stevedore.test served
// by the proxies of s1 and s2 (docs/ingress.md): Pebble resolves the host to s1 through
// challtestsrv and fetches the HTTP-01 token from s1's proxy on port 80, which forwards it to the
// controller (STEVEDORE_PUBLIC_URL, on this host's fleet bridge address); both proxies then serve
// the one certificate, its chain verified against Pebble's root, and plain HTTP redirects.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverExec } from '../../fleet/fleet.js';
import { freePorts, startPebble, type TestPebble } from '../../support/pebble.js';
import { until } from '../../support/until.js';
import { addService, cleanup, startWorld, type World } from '../deploy/deploy-world.js';
import { caddyImage, curl, HOST } from './ingress-world.js';

describe('ingress with a certificate from ACME on two servers (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let pebble: TestPebble;

  before(async () => {
    const bridge = `10.250.${process.env.FLEET_ID ?? 0}.1`;
    const [port] = await freePorts(1);
    pebble = await startPebble({ httpPort: 80 });
    w = await startWorld({
      INGRESS_PROXY_IMAGE: await caddyImage(), HOST: bridge, PORT: String(port), STEVEDORE_PUBLIC_URL: `http://${bridge}:${port}`,
      ACME_DIRECTORY_URL: pebble.directoryUrl, ACME_CA_CERT_FILE: pebble.caCertFile, SCHEDULER_CERTIFICATE_SEC: '1',
    });
    await pebble.addHost(HOST, [w.fleet.servers.find((s) => s.name === 's1')!.host]);
  });
  after(async () => {
    for (const s of ['s1', 's2']) await serverExec(s, ['docker', 'rm', '-f', 'stevedore-proxy']).catch(() => undefined);
    await cleanup(w);
    await pebble?.stop();
  });

  it('is issued within 30 s, served by both proxies with a chain that verifies against Pebble\'s root; HTTP redirects', async () => {
    const web = await addService(w, 'web', { servers: ['s1', 's2'] });
    // plain HTTP first, so the proxies answer port 80 before a certificate is asked for
    expect((await w.admin.patch(`/api/services/${web.service.id}`, { ingress: { hosts: [HOST], port: 80, tls: 'off' } })).status).to.equal(200);
    const first = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, {});
    expect(first.body.status, JSON.stringify(first.body.steps)).to.equal('succeeded');
    const s1 = w.fleet.servers.find((s) => s.name === 's1')!.host;
    await until('s1 routing plain HTTP', async () => /web v1/.test((await curl(s1, `http://${HOST}/`)).body), { timeoutMs: 60_000, everyMs: 250 });
    expect((await w.admin.patch(`/api/services/${web.service.id}`, { ingress: { hosts: [HOST], port: 80 } })).status).to.equal(200);
    const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pebble-root-')), 'root.pem');
    fs.writeFileSync(root, await pebble.root());
    const t0 = Date.now();
    const ips = ['s1', 's2'].map((n) => w.fleet.servers.find((s) => s.name === n)!.host);
    await until('both proxies serving HTTPS with the Pebble certificate', async () => {
      for (const ip of ips) if (!/web v1/.test((await curl(ip, `https://${HOST}/`, ['--cacert', root])).body)) return false;
      return true;
    }, { timeoutMs: 30_000, everyMs: 500 }).catch(async (e) => {
      const certs = (await w.admin.get(`/api/environments/${w.envId}/certificates`)).text;
      const status = (await w.admin.get(`/api/services/${web.service.id}/ingress`)).text;
      const challenge = await curl(ips[0], `http://${HOST}/.well-known/acme-challenge/nothing`);
      throw new Error(`${(e as Error).message}\ncertificates: ${certs}\ningress: ${status}\nchallenge through s1: ${JSON.stringify(challenge)}\n${w.svc.logs?.slice?.(-40).join('') ?? ''}`);
    });
    console.log(`      issued and served on both servers ${Date.now() - t0} ms after tls auto was asked for`);
    for (const ip of ips) {
      const plain = await curl(ip, `http://${HOST}/x`);
      expect(plain.code, ip).to.equal(308);
      expect(plain.location).to.equal(`https://${HOST}/x`);
    }
    const st = await until('the status routed with the certificate', async () => {
      const b = (await w.admin.get(`/api/services/${web.service.id}/ingress`)).body;
      return b.hosts[0].servers.every((x: { routed: boolean }) => x.routed) && b;
    }, { timeoutMs: 30_000, everyMs: 500 });
    expect(st.hosts[0].certificate.state).to.equal('issued');
    expect(st.hosts[0].certificate.issuer).to.match(/Pebble/);
  });
});
