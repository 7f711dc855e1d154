// bench/dashboard-screenshots.ts - the pictures of docs/dashboard/: a real service on a fresh
// database, seeded through its API (an environment with servers, images, services with a
// dependency and their restart policies, an external entity and a connection, secrets, vars,
// config files, webhooks, users, a token, a chat channel and the SMTP relay; a watched manifests
// folder declaring a second environment, whose Git source holds a broken commit; an hour of server and container samples and the
// containers' health check results written to the store, as the collector and the health sweep
// write them), then each page shot in Debian's headless Chromium at 1280 px, and a few at 375 px.
//   DATABASE_URL=postgres://... npx tsx bench/dashboard-screenshots.ts [out=docs/dashboard]
// The servers are documentation addresses (198.51.100.0/24): nothing is reached, so the Drift
// page (which asks the servers) is not shot here; the fleet's browser test shoots it
// (DASHBOARD_SCREENSHOTS=1, test/e2e/dashboard/dashboard.test.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';
import { createRepo } from '../test/support/git-repo.js';
import { bootstrapAdmin, PASSWORD, userWithRole } from '../test/support/fixtures.js';
import { launchBrowser } from '../test/support/browser.js';
import { startTestService } from '../test/support/test-service.js';
import { until } from '../test/support/until.js';
import { recordHealth } from '../controller/servers/health.js';
import type { ServerSample } from '../controller/monitoring/server-sample.js';
import { recordCheck } from '../controller/monitoring/record-check.js';
import { containerCheck } from '../controller/monitoring/service-checks.js';

const RUNNING = { State: 'running', Status: 'Up 2 hours (healthy)' };

const out = process.argv[2] ?? 'docs/dashboard';
mkdirSync(out, { recursive: true });
const manifests = mkdtempSync(join(tmpdir(), 'shots-manifests-'));
writeFileSync(join(manifests, 'staging.yaml'), [
  'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: staging}\nspec: {description: declared in a manifests folder}\n',
  'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: edge-1, environment: staging}\nspec: {hostname: 198.51.100.20, tags: [role=edge]}\n',
].join('---\n'));

// the second environment's Git source: a commit naming an environment it does not belong to
const repo = createRepo();
repo.commit({ 'deploy/vars.yaml': 'apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: LOG_LEVEL, environment: production}\nspec: {value: info}\n' }, 'Log at info');

// no background look at servers that do not exist
const svc = await startTestService({
  GIT_FILE_ROOTS: dirname(repo.bare), MANIFESTS_DIR: manifests, SCHEDULER_HEALTH_CHECK_SEC: '86400', SCHEDULER_DRIFT_CHECK_SEC: '86400', SCHEDULER_RESYNC_SEC: '86400',
  SCHEDULER_METRICS_SEC: '86400', LOG_LEVEL: 'warn',
});
const ok = (r: { status: number; text: string; body: any }) => {
  if (r.status >= 300) throw new Error(`${r.status} ${r.text}`);
  return r.body;
};
try {
  const admin = await bootstrapAdmin(svc.http);
  const env = ok(await admin.post('/api/environments', { name: 'production', description: 'the shop' }));
  const e = (path: string) => `/api/environments/${env.id}${path}`;
  ok(await admin.post(e('/ssh-key/generate'), {}));
  const servers = [];
  for (const [i, role] of ['web', 'web', 'db'].entries()) {
    servers.push(ok(await admin.post(e('/servers'), {
      name: `s${i + 1}`, hostname: `198.51.100.${i + 1}`, sshUser: 'deploy', tags: [`role=${role}`, `zone=${i % 2 ? 'b' : 'a'}`], metricsMode: 'ssh',
    })));
  }
  await recordHealth(svc.services, servers[0].id, { status: 'healthy', message: 'docker 27.3.1; load 0.42, disk / 38% used', durationMs: 80 });
  await recordHealth(svc.services, servers[1].id, { status: 'healthy', message: 'docker 27.3.1; load 1.10, disk / 51% used', durationMs: 95 });
  await recordHealth(svc.services, servers[2].id, { status: 'unhealthy', message: 'ssh: connect ETIMEDOUT 198.51.100.3:22', durationMs: 10_000 });
  ok(await admin.post(e('/registries'), { name: 'ghcr', type: 'generic', registryUrl: 'https://ghcr.example.test', username: 'shop', password: 'not-shown' }));
  const image = ok(await admin.post(e('/container-images'), { imageName: 'ghcr.example.test/shop/web', autoUpdate: true, policy: { type: 'semver', range: '^1.4' } }));
  const worker = ok(await admin.post(e('/container-images'), { imageName: 'ghcr.example.test/shop/worker' }));
  const web = ok(await admin.post(e('/services'), {
    name: 'web', containerImageId: image.id, imageTag: '1.4.2', env: { LOG_LEVEL: 'info', DATABASE_URL: 'postgres://shop@db/shop' },
    ports: ['8080'], volumes: ['/srv/web/uploads:/app/uploads'], command: ['node', 'server.js'],
    healthCheck: { test: ['CMD', 'wget', '-qO-', 'http://127.0.0.1:8080/health'], intervalSec: 10, retries: 3 }, updateOrder: 'start-first',
  }));
  const jobs = ok(await admin.post(e('/services'), {
    name: 'jobs', containerImageId: worker.id, imageTag: '2.0.1', env: { QUEUE: 'default' }, restartPolicy: 'on-failure:5',
  }));
  const deployments: Record<string, any> = {};
  for (const [service, server, name] of [[web, servers[0], 'web-1'], [web, servers[1], 'web-2'], [jobs, servers[2], 'jobs-1']]) {
    deployments[name] = ok(await admin.post(`/api/services/${service.id}/deployments`, { serverId: server.id, containerName: name }));
  }
  // the topology's other nodes and links: web needs jobs first and charges through a payments API
  ok(await admin.post(`/api/services/${web.id}/dependencies`, { dependsOnServiceId: jobs.id }));
  const payments = ok(await admin.post(e('/external-entities'), { name: 'payments', type: 'saas', url: 'https://payments.example.test', description: 'card payments' }));
  ok(await admin.post('/api/connections', { environmentId: env.id, from: { kind: 'Service', id: web.id }, to: { kind: 'ExternalEntity', id: payments.id }, label: 'charges' }));
  // the service page's health checks: results as the health sweep records them (web-2's container is gone)
  const policy = { failuresBeforeDown: 2, successesBeforeUp: 1, reminderIntervalSec: 0 };
  for (const [name, server, looks] of [['web-1', servers[0], [RUNNING, RUNNING]], ['web-2', servers[1], [RUNNING, undefined, undefined]]] as const) {
    const row = (await svc.services.servers.findById(server.id))!;
    for (const look of looks) {
      await recordCheck(svc.services, containerCheck(row, (await svc.services.deployments.findById(deployments[name].id))!, look as never, 4), policy);
    }
  }
  ok(await admin.post(e('/secrets'), { key: 'DB_PASSWORD', value: 'never-shown', description: 'the shop database' }));
  ok(await admin.post(e('/vars'), { key: 'WORKERS', value: '4', description: 'nginx worker processes' }));
  ok(await admin.post(e('/config-fragments'), { name: 'gzip', content: 'gzip on;\ngzip_types text/css application/javascript;\n' }));
  ok(await admin.post(e('/config-files'), { name: 'nginx.conf', content: 'worker_processes ${WORKERS};\n${fragment:gzip}\n', description: 'front proxy' }));
  ok(await admin.post(e('/webhooks'), { name: 'chat relay', url: 'https://hooks.example.test/stevedore', eventTypes: ['deployment.failed', 'health.failed'] }));
  const operator = await userWithRole(admin, 'operator', 'ops@example.test');
  await userWithRole(admin, 'viewer', 'viewer@example.test');
  ok(await admin.post('/api/admin/tokens', { name: 'ci', ownerUserId: operator.user.id, role: 'operator', environmentIds: [env.id] }));
  ok(await admin.post('/api/admin/chat-channels', { name: 'ops-room', webhookUrl: 'https://chat.example.test/hooks/not-shown', isDefault: true }));
  ok(await admin.put('/api/admin/smtp', { host: 'smtp.example.test', port: 587, username: 'mailer', password: 'not-shown', fromAddress: 'stevedore@example.test', enabled: true }));

  // an hour of samples a minute apart, as the SSH collector stores them
  const now = Date.now();
  const samples: ServerSample[] = [];
  for (let m = 60; m >= 0; m--) {
    const at = new Date(now - m * 60_000);
    for (const [i, s] of servers.slice(0, 2).entries()) {
      const wave = Math.sin((m + i * 9) / 6);
      samples.push({
        serverId: s.id, at, source: 'ssh', cpuPercent: Math.round((22 + 14 * wave + i * 6) * 10) / 10, memoryUsedBytes: Math.round(2.4e9 + 3e8 * wave), memoryTotalBytes: 8e9,
        containers: [{ name: `web-${i + 1}`, cpuPercent: 6 + 4 * wave, memoryUsedBytes: Math.round(3.1e8 + 2e7 * wave + m * 1e5), memoryLimitBytes: 1e9 }],
      });
    }
  }
  await svc.services.serverSamples.insertServerSamples(samples);
  const staging = await until('the manifests folder applied', async () => (ok(await admin.get('/api/environments'))).items.find((x: any) => x.name === 'staging'), { timeoutMs: 30_000 });

  ok(await admin.put(`/api/environments/${staging.id}/manifests-source`, { url: repo.url, ref: 'main', path: 'deploy', pollIntervalSec: 0 }));
  await until('the Git source failed', async () => ok(await admin.get(`/api/environments/${staging.id}/manifests-source/status`)).sync === 'Failed', { timeoutMs: 30_000 });

  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${svc.url}/login`);
  await page.getByLabel('Email').fill('admin@example.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => !u.pathname.startsWith('/login'));

  const settled = (p: Page) => p.waitForFunction(() => ![...(globalThis as any).document.querySelectorAll('[role="status"]')]
    .some((el: any) => /^(Loading|Asking)/.test(el.textContent)));
  const shoot = async (p: Page, path: string, name: string, then?: (p: Page) => Promise<void>) => {
    await p.goto(`${svc.url}${path}`);
    await p.getByRole('heading', { level: 1 }).waitFor();
    await settled(p);
    await then?.(p);
    await p.screenshot({ path: `${out}/${name}.png`, fullPage: true });
    console.log(`wrote ${out}/${name}.png`);
  };
  const envPath = `/env/${env.id}`;
  await shoot(page, '/environments', 'environments');
  await shoot(page, envPath, 'overview');
  await shoot(page, `${envPath}/servers`, 'servers');
  await shoot(page, `${envPath}/servers`, 'server-form', async (p) => {
    await p.getByRole('button', { name: 'New server' }).click();
    await p.getByLabel(/^Name\b/).fill('s4');
    await p.getByLabel('Hostname').fill('not a host!');
    await p.getByRole('button', { name: 'Create server' }).click();
    await p.locator('[data-field-error="hostname"]').waitFor();
  });
  await shoot(page, `/env/${staging.id}/servers`, 'manifest-owned', async (p) => {
    await p.getByRole('button', { name: 'Edit edge-1' }).click();
    await p.locator('form[data-form="edit-servers-edge-1"]').waitFor();
  });
  await shoot(page, `${envPath}/metrics`, 'metrics', async (p) => { await p.locator('figure.chart canvas').first().waitFor(); });
  await shoot(page, `${envPath}/services`, 'services');
  await shoot(page, `${envPath}/services`, 'service-form', async (p) => {
    await p.getByRole('button', { name: 'New service' }).click();
    await p.locator('form[data-form="create-services"]').waitFor();
  });
  await shoot(page, `${envPath}/services/${web.id}`, 'service', async (p) => { await p.locator('figure.chart canvas').first().waitFor(); });
  await shoot(page, `${envPath}/services/${web.id}`, 'service-edit', async (p) => {
    await p.getByRole('button', { name: 'Edit spec' }).click();
    await p.locator('form[data-form="edit-service"]').waitFor();
  });
  await shoot(page, `${envPath}/images`, 'images');
  await shoot(page, `${envPath}/registries`, 'registries');
  await shoot(page, `${envPath}/config-files`, 'config-files', async (p) => {
    await p.getByRole('button', { name: 'nginx.conf', exact: true }).click();
    await p.getByLabel('Rendered preview').waitFor();
  });
  await shoot(page, `${envPath}/secrets`, 'secrets', async (p) => {
    await p.getByRole('button', { name: 'Edit DB_PASSWORD' }).click();
  });
  await shoot(page, `${envPath}/vars`, 'vars');
  await shoot(page, `${envPath}/webhooks`, 'webhooks');
  await shoot(page, `${envPath}/databases`, 'databases');
  await shoot(page, `${envPath}/topology`, 'topology');
  await shoot(page, `${envPath}/audit`, 'audit-log');
  await shoot(page, `${envPath}/settings`, 'settings');
  await shoot(page, `${envPath}/admin`, 'admin');
  await shoot(page, `${envPath}/system`, 'system-settings');
  await shoot(page, `/env/${staging.id}/git`, 'git-source');
  // at phone width: the same pages, nothing cut and no sideways scroll
  await page.setViewportSize({ width: 375, height: 800 });
  await shoot(page, envPath, 'phone-overview');
  await shoot(page, `${envPath}/services/${web.id}`, 'phone-service', async (p) => { await p.locator('figure.chart canvas').first().waitFor(); });
  await browser.close();
} finally {
  await svc.stop();
  rmSync(manifests, { recursive: true, force: true });
  repo.remove();
}
