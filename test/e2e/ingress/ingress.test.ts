// Ingress on the fleet (docs/ingress.md): a service with host app.stevedore.test on s1 and s2,
// served by the Caddy proxy the controller runs on each, reached as a client that resolved the
// host to that server (curl --resolve). Plain HTTP, a certificate from a secret signed by a CA
// made here (openssl), the redirect, a proxy removed by hand, a version that never gets healthy,
// and a deploy under a request every 20 ms through each proxy.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serverExec } from '../../fleet/fleet.js';
import { until } from '../../support/until.js';
import { addService, cleanup, startWorld, type World } from '../deploy/deploy-world.js';
import { caddyImage, curl, HOST, probe } from './ingress-world.js';

const WAIT = { timeoutMs: 60_000, everyMs: 250 };

/** A CA and a certificate it signs for HOST, made with openssl. */
function selfMadeCa() {
  const dir = mkdtempSync(path.join(tmpdir(), 'ingress-ca-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2', '-subj', '/CN=Stevedore Test CA', '-keyout', 'ca.key', '-out', 'ca.pem');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${HOST}`, '-keyout', 'leaf.key', '-out', 'leaf.csr');
  execFileSync('sh', ['-c', `printf 'subjectAltName=DNS:${HOST}\\n' > ext && openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile ext -out leaf.pem`], { cwd: dir, stdio: 'ignore' });
  return { caFile: path.join(dir, 'ca.pem'), bundle: `${readFileSync(path.join(dir, 'leaf.pem'), 'utf8')}${readFileSync(path.join(dir, 'leaf.key'), 'utf8')}` };
}

describe('ingress through the proxy on each server (e2e)', function () {
  this.timeout(300_000);
  let w: World;
  let web: Awaited<ReturnType<typeof addService>>;
  let ips: string[];
  const status = async () => (await w.admin.get(`/api/services/${web.service.id}/ingress`)).body;
  const bothAnswer = (re: RegExp, scheme = 'http', extra: string[] = []) => until(`both servers answer ${re} over ${scheme}`, async () => {
    for (const ip of ips) if (!re.test((await curl(ip, `${scheme}://${HOST}/`, extra)).body)) return false;
    return true;
  }, WAIT);

  before(async () => {
    w = await startWorld({ INGRESS_PROXY_IMAGE: await caddyImage(), SCHEDULER_DRIFT_CHECK_SEC: '3600' });
    ips = ['s1', 's2'].map((n) => w.fleet.servers.find((s) => s.name === n)!.host);
    web = await addService(w, 'web', { servers: ['s1', 's2'] });
    const res = await w.admin.patch(`/api/services/${web.service.id}`, { drainSec: 1, ingress: { hosts: [HOST], port: 80, tls: 'off' } });
    expect(res.status, res.text).to.equal(200);
    const first = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, {});
    expect(first.body.status, JSON.stringify(first.body.steps)).to.equal('succeeded');
  });
  after(async () => {
    for (const s of ['s1', 's2', 's3']) await serverExec(s, ['docker', 'rm', '-f', 'stevedore-proxy']).catch(() => undefined);
    await cleanup(w);
  });

  it('serves the host from the container on each server; routed on both as observed; another host is 404', async () => {
    await bothAnswer(/web v1/);
    const st = await until('both routed', async () => {
      const b = await status();
      return b.hosts[0]?.servers.length === 2 && b.hosts[0].servers.every((x: { routed: boolean }) => x.routed) && b;
    }, WAIT);
    expect(st.hosts[0]).to.deep.include({ host: HOST, certificate: { state: 'none', issuer: null, notAfter: null, error: null } });
    expect(st.hosts[0].servers.map((x: { serverName: string; message: string | null }) => [x.serverName, x.message]).sort()).to.deep.equal([['s1', null], ['s2', null]]);
    expect((await curl(ips[0], 'http://other.stevedore.test/')).code).to.equal(404);
    // s3 runs nothing of it: no proxy there
    expect((await serverExec('s3', ['sh', '-c', 'docker ps -aq --filter name=^stevedore-proxy$'])).trim()).to.equal('');
    // the proxy carries the ownership labels
    const labels = JSON.parse(await serverExec('s1', ['docker', 'inspect', '--format', '{{json .Config.Labels}}', 'stevedore-proxy']));
    expect(labels).to.include({ 'stevedore.managed': 'true', 'stevedore.environment-id': w.envId, 'stevedore.proxy': 'true' });
  });

  it('a proxy removed by hand comes back and routes again', async () => {
    const before = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}', 'stevedore-proxy'])).trim();
    await serverExec('s1', ['docker', 'rm', '-f', 'stevedore-proxy']);
    const t0 = Date.now();
    await until('the proxy back on s1', async () => {
      const id = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}}', 'stevedore-proxy']).catch(() => '')).trim();
      return id && id !== before && /web v1/.test((await curl(ips[0], `http://${HOST}/`)).body);
    }, WAIT);
    console.log(`      proxy removed by hand: routing again after ${Date.now() - t0} ms`);
  });

  it('a deploy answers every request of a client asking each proxy every 20 ms', async () => {
    const p = probe(ips);
    await until('the probe answering on both', () => ips.every((ip) => p.answers.filter((a) => a.ip === ip).length >= 10), WAIT);
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'v2' });
    expect(res.body.status, JSON.stringify(res.body.steps)).to.equal('succeeded');
    await bothAnswer(/web v2/);
    const n = p.answers.length;
    await until('ten more answers', () => p.answers.length >= n + 20, WAIT);
    const answers = await p.stop();
    const failed = answers.filter((a) => !/web v[12]/.test(a.answer));
    const logs = failed.length ? res.body.steps.map((s: { log: string }) => s.log).join('\n') : '';
    expect(failed.map((a) => `${new Date(a.at).toISOString()} ${a.ip} ${a.answer}`), `${answers.length} requests\n${logs}`).to.deep.equal([]);
    for (const ip of ips) {
      const mine = answers.filter((a) => a.ip === ip).map((a) => a.answer.match(/web v[12]/)![0]);
      expect(mine[0], ip).to.equal('web v1');
      expect(mine.at(-1), ip).to.equal('web v2');
    }
    expect(res.body.steps.map((s: { log: string }) => s.log).join('\n')).to.match(/route/);
    console.log(`      ${answers.length} requests through the two proxies during the deploy, ${failed.length} failed`);
  });

  it('a version that never gets healthy leaves the route on the old container', async () => {
    const res = await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'unhealthy' });
    expect(res.body.status).to.not.equal('succeeded');
    for (const ip of ips) expect((await curl(ip, `http://${HOST}/`)).body).to.match(/web v2/);
    const st = await status();
    expect(st.hosts[0].servers.every((x: { routed: boolean }) => x.routed), JSON.stringify(st)).to.equal(true);
  });

  it('serves HTTPS with the certificate of a secret, verified against its CA, and redirects plain HTTP', async () => {
    const { caFile, bundle } = selfMadeCa();
    expect((await w.admin.post(`/api/environments/${w.envId}/secrets`, { key: 'APP_TLS', value: bundle })).status).to.equal(201);
    const res = await w.admin.patch(`/api/services/${web.service.id}`, { ingress: { hosts: [HOST], port: 80, tls: { secretRef: 'APP_TLS' } } });
    expect(res.status, res.text).to.equal(200);
    await bothAnswer(/web v2/, 'https', ['--cacert', caFile]);
    for (const ip of ips) {
      const plain = await curl(ip, `http://${HOST}/some/path?q=1`);
      expect(plain.code, ip).to.equal(308);
      expect(plain.location).to.equal(`https://${HOST}/some/path?q=1`);
      // verification is real: without the CA the chain is refused
      expect((await curl(ip, `https://${HOST}/`)).code, ip).to.equal(0);
    }
    const st = await until('routed with the certificate', async () => {
      const b = await status();
      return b.hosts[0].servers.every((x: { routed: boolean }) => x.routed) && b;
    }, WAIT);
    expect(st.hosts[0].certificate).to.include({ state: 'issued', issuer: 'CN=Stevedore Test CA', error: null });
  });
});
