// GET /metrics: Prometheus's text format, checked with Prometheus's own rules (`promtool check
// metrics`, from Debian's prometheus package, installed by test/support/promtool.sh), and its
// counters moving with the real traffic, plans and reconciles of a running service.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { newSshKeyPair } from '../support/ssh-key.js';
import { until } from '../support/until.js';

/** The value of one sample (name and exact labels), 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2] ? m[2].split(/,(?=[a-zA-Z_]+=")/) : [];
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

describe('GET /metrics (Prometheus)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let admin: HttpClient;
  let promtool: string;
  // the service scraped here has METRICS_TOKEN: only then are the per-service series served
  const TOKEN = 'scrape-me-0123456789';
  const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
    const res = await fetch(`${svc.url}/metrics`, { headers });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };

  before(async () => {
    promtool = execFileSync('bash', ['test/support/promtool.sh'], { encoding: 'utf8' }).trim();
    svc = await startTestService({ SCHEDULER_DRIFT_CHECK_SEC: '3600', METRICS_TOKEN: TOKEN });
    admin = await bootstrapAdmin(svc.http);
  });
  after(() => svc?.stop());

  it("answers Prometheus's text format that promtool accepts, every family named stevedore_*", async () => {
    await admin.get('/api/environments');
    const res = await scrape();
    expect(res.status).to.equal(200);
    expect(res.type).to.match(/^text\/plain; version=0\.0\.4/);
    const check = spawnSync(promtool, ['check', 'metrics'], { input: res.text, encoding: 'utf8' });
    expect(check.stdout + check.stderr, 'promtool check metrics').to.equal('');
    expect(check.status).to.equal(0);
    const families = [...res.text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]);
    expect(families.length).to.be.greaterThan(10);
    for (const [name] of families) expect(name).to.match(/^stevedore_/);
    for (const [name, type] of families) if (type === 'counter') expect(name).to.match(/_total$/);
    for (const name of ['stevedore_http_requests_total', 'stevedore_http_request_duration_seconds', 'stevedore_reconcile_duration_seconds',
      'stevedore_work_queue_depth', 'stevedore_work_queue_retries_total', 'stevedore_plans_total', 'stevedore_plan_duration_seconds',
      'stevedore_docker_event_reconnects_total', 'stevedore_ssh_pool_connections', 'stevedore_postgres_pool_connections', 'stevedore_alerts',
      'stevedore_backups', 'stevedore_restores', 'stevedore_process_cpu_seconds_total', 'stevedore_process_resident_memory_bytes']) {
      expect(families.map(([n]) => n), name).to.include(name);
    }
  });

  it('counts requests by route template and status, never by path', async () => {
    const before = (await scrape()).text;
    for (let i = 0; i < 3; i++) expect((await admin.get('/api/environments')).status).to.equal(200);
    expect((await admin.get('/api/services/00000000-0000-4000-8000-000000000000')).status).to.equal(404);
    expect((await admin.get('/api/no-such-thing/at-all')).status).to.equal(404);
    const after = (await scrape()).text;
    const delta = (labels: Record<string, string>) => sample(after, 'stevedore_http_requests_total', labels) - sample(before, 'stevedore_http_requests_total', labels);
    expect(delta({ method: 'GET', route: '/api/environments', status: '200' })).to.equal(3);
    expect(delta({ method: 'GET', route: '/api/services/{id}', status: '404' })).to.equal(1);
    expect(delta({ method: 'GET', route: 'none', status: '404' })).to.equal(1);
    expect(after).to.not.include('00000000-0000-4000-8000-000000000000');
    expect(sample(after, 'stevedore_http_request_duration_seconds_count', { method: 'GET', route: '/api/environments', status: '200' })).to.be.at.least(3);
  });

  it('counts plans by outcome and the reconciles that follow them', async () => {
    const envId = (await createEnvironment(admin)).id;
    const s = svc.services;
    await s.db('environments').where({ id: envId }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const server = await s.servers.insert({ environmentId: envId, name: 'nowhere', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    const image = await s.containerImages.insert({ environmentId: envId, imageName: 'registry.test:5000/acme/web' } as never);
    const service = await s.services.create(envId, { name: 'web', containerImageId: image.id, imageTag: 'v1' });
    await s.deployments.create(service.id, envId, { serverId: server.id, containerName: 'web-1' });
    const before = (await scrape()).text;
    const plan = await admin.post(`/api/services/${service.id}/deploy?wait=true`, {});
    expect(plan.body.status, plan.text).to.equal('rolled_back');
    const after = (await scrape()).text;
    expect(sample(after, 'stevedore_plans_total', { outcome: 'rolled_back', trigger: 'deploy' })
      - sample(before, 'stevedore_plans_total', { outcome: 'rolled_back', trigger: 'deploy' })).to.equal(1);
    expect(sample(after, 'stevedore_plan_duration_seconds_count', { outcome: 'rolled_back' })).to.be.at.least(1);
    // the plan's end puts its deployments' keys in the work queue: their looks are timed by kind
    const looks = (t: string) => sample(t, 'stevedore_reconcile_duration_seconds_count', { kind: 'deployment', result: 'ok' });
    await until('a deployment reconcile counted', async () => looks((await scrape()).text) > looks(before), { timeoutMs: 30_000, everyMs: 200 });
  });

  it('serves per-service and per-server series: ready, drifted, the running tag, plan durations and heals', async () => {
    const env = await createEnvironment(admin);
    const s = svc.services;
    await s.db('environments').where({ id: env.id }).update({ sshPrivateKeySealed: s.secretBox.seal(newSshKeyPair().private) });
    const server = await s.servers.insert({ environmentId: env.id, name: 'box-1', hostname: '127.0.0.1', sshPort: 1, sshUser: 'root', dockerMode: 'ssh' } as never);
    const image = await s.containerImages.insert({ environmentId: env.id, imageName: 'registry.test:5000/acme/shop' } as never);
    const shop = await s.services.create(env.id, { name: 'shop', containerImageId: image.id, imageTag: 'v7' });
    const cart = await s.services.create(env.id, { name: 'cart', containerImageId: image.id, imageTag: 'v1' });
    const shopDep = await s.deployments.create(shop.id, env.id, { serverId: server.id, containerName: 'shop-1' });
    await s.deployments.create(cart.id, env.id, { serverId: server.id, containerName: 'cart-1' });
    // what a look records: shop's container runs v7 and is Ready but drifted; the server is Ready
    const at = new Date().toISOString();
    const cond = (type: string, status: string, reason: string) => ({ type, status, reason, message: reason, lastTransitionTime: at });
    await s.deployments.recordObserved(shopDep.id, { status: 'running', imageTag: 'v7', conditions: [cond('Ready', 'True', 'Running'), cond('Drifted', 'True', 'EnvChanged')] } as never);
    await s.services.recordConditions(shop.id, [cond('Ready', 'True', 'Running')] as never);
    await s.services.recordConditions(cart.id, [cond('Ready', 'False', 'NotDeployed')] as never);
    await s.db('servers').where({ id: server.id }).update({ conditions: JSON.stringify([cond('Ready', 'True', 'Reachable')]) });

    const text = (await scrape()).text;
    const e = env.name;
    expect(sample(text, 'stevedore_service_ready', { environment: e, service: 'shop' })).to.equal(1);
    expect(text).to.match(new RegExp(`^stevedore_service_ready\\{environment="${e}",service="cart"\\} 0$`, 'm'));
    expect(sample(text, 'stevedore_service_drifted', { environment: e, service: 'shop' })).to.equal(1);
    expect(text).to.match(new RegExp(`^stevedore_service_drifted\\{environment="${e}",service="cart"\\} 0$`, 'm'));
    expect(sample(text, 'stevedore_deployment_running_info', { environment: e, service: 'shop', server: 'box-1', container: 'shop-1', tag: 'v7' })).to.equal(1);
    expect(text, 'a container not seen running has no info series').to.not.match(/stevedore_deployment_running_info\{[^}]*container="cart-1"/);
    expect(sample(text, 'stevedore_server_ready', { environment: e, server: 'box-1' })).to.equal(1);
    expect(sample(text, 'stevedore_server_drifted_deployments', { environment: e, server: 'box-1' })).to.equal(1);
    const check = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.stdout + check.stderr, 'promtool check metrics').to.equal('');

    // a heal (trigger drift-heal) of shop's deployment, on a server nothing answers on: it ends failed or rolled back
    const heal = await admin.post(`/api/services/${shop.id}/deployments/${shopDep.id}/heal`, {});
    expect(heal.status, heal.text).to.equal(202);
    const ended = await until('the heal plan to end', async () => {
      const p = (await admin.get(`/api/deployment-plans/${heal.body.id}`)).body;
      return !['pending', 'running', 'rolling_back'].includes(p.status) && p;
    }, { timeoutMs: 60_000, everyMs: 200 });
    const after = (await scrape()).text;
    const labels = { environment: e, service: 'shop', outcome: ended.status };
    expect(sample(after, 'stevedore_service_heals_total', labels)).to.equal(1);
    expect(sample(after, 'stevedore_service_plan_duration_seconds_count', labels)).to.equal(1);
    expect(sample(after, 'stevedore_service_plan_duration_seconds_bucket', { ...labels, le: '+Inf' })).to.equal(1);
    expect(sample(after, 'stevedore_service_heals_total', { environment: e, service: 'cart', outcome: ended.status }), 'cart was not in the plan').to.equal(0);
  });

  it('with METRICS_TOKEN wants it as a bearer token; open, it serves no series that name the fleet', async () => {
    const get = (h: Record<string, string> = {}) => fetch(`${svc.url}/metrics`, { headers: h });
    const refused = await get();
    expect(refused.status).to.equal(401);
    expect(await refused.json()).to.include({ code: 'UNAUTHORIZED' }).and.to.have.property('requestId');
    expect((await fetch(`${svc.url}/metrics`, { method: 'POST' })).status).to.equal(405);
    expect((await get({ authorization: 'Bearer wrong' })).status).to.equal(401);
    const ok = await get({ authorization: `Bearer ${TOKEN}` });
    expect(ok.status).to.equal(200);
    expect(await ok.text()).to.include('stevedore_http_requests_total').and.include('stevedore_service_ready');

    // without a token anyone who reaches /metrics reads it: no environment, service, server or tag there
    const open = await startTestService({});
    try {
      const res = await fetch(`${open.url}/metrics`);
      expect(res.status).to.equal(200);
      const text = await res.text();
      expect(text).to.include('stevedore_plans_total');
      for (const name of ['stevedore_service_ready', 'stevedore_service_drifted', 'stevedore_deployment_running_info', 'stevedore_server_ready',
        'stevedore_server_drifted_deployments', 'stevedore_service_plan_duration_seconds', 'stevedore_service_heals_total']) expect(text, name).to.not.include(name);
    } finally {
      await open.stop();
    }
  });

  it('ships a scrape config and alert rules that promtool accepts, on metrics that exist', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prom-'));
    try {
      writeFileSync(join(dir, 'token'), 'scrape-me\n');
      writeFileSync(join(dir, 'prometheus.yml'), readFileSync('docs/prometheus/prometheus.yml', 'utf8').replace('/etc/prometheus/stevedore-metrics-token', join(dir, 'token')));
      copyFileSync('docs/prometheus/stevedore-alerts.yml', join(dir, 'stevedore-alerts.yml'));
      const config = spawnSync(promtool, ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      expect(config.status, config.stdout + config.stderr).to.equal(0);
      expect(config.stdout).to.include('SUCCESS: 1 rule files found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // every stevedore_* name the rules use is one /metrics serves
    const served = new Set([...(await scrape()).text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap((m) => m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_count`, `${m[1]}_sum`] : [m[1]]));
    const used = [...readFileSync('docs/prometheus/stevedore-alerts.yml', 'utf8').matchAll(/stevedore_[a-z_]+/g)].map((m) => m[0]);
    expect(used.length).to.be.greaterThan(5);
    for (const name of used) expect([...served], name).to.include(name);
  });
});
