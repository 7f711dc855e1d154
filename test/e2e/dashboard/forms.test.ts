// The dashboard's forms in Debian's Chromium against the real service and PostgreSQL: objects
// created and edited through forms drawn from the API's schemas are stored (read back through the
// API and the database), a secret typed into the page never comes back in any page, a viewer gets
// no create or edit control, a field a manifest owns is read-only and names its file, and at phone
// width no page scrolls sideways. (No server of the fleet is used: SKIP_FLEET=1 runs it.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { seriousViolations } from '../../support/axe.js';
import { until } from '../../support/until.js';
import { bootstrapAdmin, createEnvironment, PASSWORD, userWithRole } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { recordHealth } from '../../../controller/servers/health.js';
import { startLocalRegistry } from '../../support/local-registry.js';
import { signIn as signInPage } from '../../support/sign-in.js';
import { recordCheck } from '../../../controller/monitoring/record-check.js';
import { containerCheck } from '../../../controller/monitoring/service-checks.js';

/** The environment's pages (the route table's navigation) and the ones outside it. */
const ENV_PAGES = ['', '/servers', '/metrics', '/services', '/images', '/registries', '/config-files', '/secrets', '/vars', '/webhooks', '/drift',
  '/git', '/databases', '/jobs', '/topology', '/audit', '/settings', '/admin', '/system', '/users', '/tokens'];

describe('dashboard forms in a real browser (e2e)', function () {
  this.timeout(180_000);
  let svc: TestService;
  let admin: HttpClient;
  let browser: Browser;
  let envId: string;
  let ownedEnvId: string;
  let imageId: string;
  let viewerEmail: string;

  const signIn = async (email = 'admin@example.test', width = 1280): Promise<Page> => {
    const page = await signInPage(await (await browser.newContext({ bypassCSP: true, viewport: { width, height: 900 } })).newPage(), svc.url, email);
    return page;
  };
  const open = async (page: Page, path: string, heading: string) => {
    await page.goto(`${svc.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };
  // runs in the page: globalThis is its window
const widths = (page: Page) => page.evaluate(() => {
  const w = globalThis as any;
  return [w.document.documentElement.scrollWidth as number, w.innerWidth as number];
});
/** Waits until no part of the page still says it is loading. */
const settled = (page: Page) => page.waitForFunction(() => ![...(globalThis as any).document.querySelectorAll('[role="status"]')]
  .some((e: any) => /^(Loading|Asking)/.test(e.textContent)));
const form = (page: Page, name: string) => page.locator(`form[data-form="${name}"]`);

  let manifests: string;

  before(async () => {
    // a watched folder of manifests declares an environment and a server in it: the manifest owns their fields
    manifests = mkdtempSync(join(tmpdir(), 'dash-manifests-'));
    writeFileSync(join(manifests, 'environment.yaml'), 'apiVersion: stevedore/v1\nkind: Environment\nmetadata: {name: declared}\nspec: {}\n');
    writeFileSync(join(manifests, 'servers.yaml'), 'apiVersion: stevedore/v1\nkind: Server\nmetadata: {name: edge-1, environment: declared}\nspec: {hostname: edge-1.example.test}\n');
    svc = await startTestService({ MANIFESTS_DIR: manifests });
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin, 'staging')).id;
    const image = await admin.post(`/api/environments/${envId}/container-images`, { imageName: 'registry.example.test/shop/web' });
    expect(image.status, image.text).to.equal(201);
    imageId = image.body.id;
    viewerEmail = (await userWithRole(admin, 'viewer')).user.email;
    ownedEnvId = await until('the manifests folder applied', async () => (await admin.get('/api/environments')).body.items.find((e: any) => e.name === 'declared')?.id);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    rmSync(manifests, { recursive: true, force: true });
  });

  it('creates an environment through the form and stores it', async () => {
    const page = await signIn();
    await open(page, '/environments', 'Environments');
    await page.getByRole('button', { name: 'New environment' }).click();
    const f = form(page, 'create-environment');
    await f.getByLabel(/^Name\b/).fill('from-the-page');
    await f.getByLabel('Description').fill('made in a form');
    await f.getByLabel('Generate one').check();
    await f.getByRole('button', { name: 'Create environment' }).click();
    await page.getByTestId('public-key').waitFor();
    const stored = (await admin.get('/api/environments')).body.items.find((e: any) => e.name === 'from-the-page');
    expect(stored).to.include({ description: 'made in a form' });
    const row = await svc.services.db('environments').where({ id: stored.id }).first();
    expect(row.sshPublicKey).to.equal((await page.getByTestId('public-key').innerText()).trim());
  });

  it('creates a server with its labels through the form and stores it; a bad field is named next to it', async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/servers`, 'Servers');
    await page.getByRole('button', { name: 'New server' }).click();
    const f = form(page, 'create-servers');
    await f.getByLabel(/^Name\b/).fill('web-1');
    // checked with the API's schema before it is sent: the error stands next to the field
    await f.getByLabel('Hostname').fill('not a host!');
    await f.getByRole('button', { name: 'Create server' }).click();
    await expect(await f.locator('[data-field-error="hostname"]').innerText()).to.match(/Hostname must match/);
    await f.getByLabel('Hostname').fill('web-1.example.test');
    await f.getByLabel('SSH port').fill('2222');
    await f.getByLabel('SSH user').fill('deploy');
    await f.getByRole('button', { name: 'Add to Tags' }).click();
    await f.getByLabel('Tags 1').fill('role=web');
    await f.getByRole('button', { name: 'Add to Tags' }).click();
    await f.getByLabel('Tags 2').fill('zone=a');
    await f.getByLabel('Metrics mode').selectOption('ssh');
    await f.getByRole('button', { name: 'Create server' }).click();
    await page.locator('tr[data-item="web-1"]').waitFor();
    const stored = (await admin.get(`/api/environments/${envId}/servers`)).body.items.find((s: any) => s.name === 'web-1');
    expect(stored).to.deep.include({ hostname: 'web-1.example.test', sshPort: 2222, sshUser: 'deploy', tags: ['role=web', 'zone=a'], metricsMode: 'ssh' });

    // a refusal of the API (a second web-1: 409) is shown with its message
    await page.getByRole('button', { name: 'New server' }).click();
    await f.getByLabel(/^Name\b/).fill('web-1');
    await f.getByLabel('Hostname').fill('web-2.example.test');
    await f.getByRole('button', { name: 'Create server' }).click();
    await f.getByRole('alert').filter({ hasText: /already exists|web-1/ }).waitFor();
  });

  it('creates a service through the form (image, tag, env, ports, health check) and stores it', async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/services`, 'Services');
    await page.getByRole('button', { name: 'New service' }).click();
    const f = form(page, 'create-services');
    await f.getByLabel(/^Name\b/).fill('shop');
    await f.getByLabel('Container image').selectOption(imageId);
    await f.getByLabel('Image tag').fill('1.4.2');
    await f.getByRole('button', { name: 'Add to Env' }).click();
    await f.getByLabel('Env name 1').fill('LOG_LEVEL');
    await f.getByLabel('Env value 1').fill('info');
    await f.getByRole('button', { name: 'Add to Ports' }).click();
    await f.getByLabel('Ports 1').fill('80');
    await f.getByRole('button', { name: 'Add to Command' }).click();
    await f.getByLabel('Command 1').fill('serve');
    await f.getByLabel('Set health check').check();
    await f.getByRole('button', { name: 'Add to Test' }).click();
    await f.getByLabel('Test 1').fill('CMD');
    await f.getByRole('button', { name: 'Add to Test' }).click();
    await f.getByLabel('Test 2').fill('true');
    await f.getByLabel('Interval (s)').fill('5');
    await f.getByLabel('Update order').selectOption('start-first');
    await f.getByRole('button', { name: 'Create service' }).click();
    await page.locator('tr[data-item="shop"]').waitFor();
    const stored = (await admin.get(`/api/environments/${envId}/services`)).body.items.find((s: any) => s.name === 'shop');
    expect(stored).to.deep.include({
      containerImageId: imageId, imageTag: '1.4.2', env: { LOG_LEVEL: 'info' }, ports: ['80'], command: ['serve'],
      healthCheck: { test: ['CMD', 'true'], intervalSec: 5 }, updateOrder: 'start-first',
    });
  });

  it('keeps the lists live from the event stream: a health change and a deleted service show without a reload', async () => {
    const server = (await admin.post(`/api/environments/${envId}/servers`, { name: 'live-1', hostname: 'live-1.example.test' })).body;
    const gone = (await admin.post(`/api/environments/${envId}/services`, { name: 'going', containerImageId: imageId })).body;
    expect((await admin.post(`/api/services/${gone.id}/deployments`, { serverId: server.id, containerName: 'going-1' })).status).to.equal(201);
    const page = await signIn();
    // the list follows the environment's stream once it is open (what is published before is not replayed)
    const streaming = () => page.waitForResponse((r) => r.url().includes(`/api/events?environmentId=${envId}`));
    let stream = streaming();
    await open(page, `/env/${envId}/servers`, 'Servers');
    await stream;
    const row = page.locator('tr[data-item="live-1"]');
    expect(await row.innerText()).to.include('unknown');
    // what a health sweep stores and publishes (health.changed on the environment's stream)
    await recordHealth(svc.services, server.id, { status: 'unhealthy', message: 'ssh: connect ECONNREFUSED', durationMs: 5 });
    await row.getByText('ssh: connect ECONNREFUSED').waitFor();
    expect(await row.innerText()).to.include('unhealthy');

    stream = streaming();
    await open(page, `/env/${envId}/services`, 'Services');
    await page.locator('tr[data-item="going"]').waitFor();
    await stream;
    expect((await admin.delete(`/api/services/${gone.id}`)).status).to.equal(204); // another user, through the API
    await page.locator('tr[data-item="going"]').waitFor({ state: 'detached' });
  });

  it('creates a config file and an API token through the forms; the token is shown once', async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/config-files`, 'Config files');
    await page.getByRole('button', { name: 'New config file' }).click();
    const f = form(page, 'create-config-files');
    await f.getByLabel(/^Name\b/).fill('nginx.conf');
    await f.getByLabel('Content').fill('worker_processes ${WORKERS};\n');
    await f.getByRole('button', { name: 'Create config file' }).click();
    await page.locator('tr[data-item="nginx.conf"]').waitFor();
    const file = (await admin.get(`/api/environments/${envId}/config-files`)).body.items.find((x: any) => x.name === 'nginx.conf');
    expect(file.content).to.equal('worker_processes ${WORKERS};\n');

    await open(page, `/env/${envId}/tokens`, 'API tokens');
    await page.getByRole('button', { name: 'New API token' }).click();
    const t = form(page, 'create-tokens');
    await t.getByLabel(/^Name\b/).fill('ci');
    await t.getByLabel('Role').selectOption('operator');
    await t.getByRole('button', { name: 'Create API token' }).click();
    // the API's rule the schema cannot say stands under the field it names
    expect(await t.locator('[data-field-error="ownerUserId"]').innerText()).to.include('Give exactly one of ownerUserId and ownerServiceAccountId');
    await t.getByLabel('Owner user').selectOption({ label: 'admin@example.test' });
    await t.getByRole('group', { name: 'Environments' }).getByLabel('staging').check();
    await t.getByRole('button', { name: 'Create API token' }).click();
    const token = (await page.getByTestId('shown-once').innerText()).trim();
    const stored = (await admin.get('/api/admin/tokens')).body.items.find((x: any) => x.name === 'ci');
    expect(token.startsWith(stored.tokenPrefix)).to.equal(true);
    expect(stored).to.deep.include({ role: 'operator', environmentIds: [envId] });
    expect((await admin.withToken(token).get('/api/auth/me')).status).to.equal(200);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.reload();
    await page.locator('tr[data-item="ci"]').waitFor();
    expect(await page.content()).to.not.include(token);
  });

  it('creates a database and sets its backup schedule through the forms; its password is write-only', async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/databases`, 'Databases');
    await page.getByRole('button', { name: 'New database' }).click();
    const f = form(page, 'create-databases');
    await f.getByLabel(/^Name\b/).fill('shopdb');
    await f.getByLabel(/^Type\b/).fill('postgres');
    await f.getByLabel('Container name').fill('shop-postgres');
    await f.getByLabel('Database name').fill('shop');
    await f.getByLabel('Username').fill('shop');
    await f.getByLabel('Password').fill('db-secret-Xy9');
    await f.getByRole('button', { name: 'Create database' }).click();
    await page.locator('tr[data-item="shopdb"]').waitFor();
    const db = (await admin.get(`/api/environments/${envId}/databases`)).body.items.find((d: any) => d.name === 'shopdb');
    expect(db).to.deep.include({ type: 'postgres', containerName: 'shop-postgres', databaseName: 'shop', username: 'shop', hasCredentials: true });
    expect(await page.content()).to.not.include('db-secret-Xy9');

    await page.getByRole('button', { name: 'shopdb', exact: true }).click();
    const schedule = form(page, 'setBackupSchedule-shopdb');
    await schedule.getByLabel('Cron').fill('0 3 * * *');
    await schedule.getByLabel('Enabled').check();
    await schedule.getByRole('button', { name: 'Save backup schedule' }).click();
    await until('the schedule stored', async () => (await admin.get(`/api/databases/${db.id}/backup-schedule`)).body.cron === '0 3 * * *');
    expect((await admin.get(`/api/databases/${db.id}/backup-schedule`)).body).to.include({ cron: '0 3 * * *', enabled: true });
  });

  it('sets the SMTP relay and creates a chat channel on the admin page; their secrets stay write-only', async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/admin`, 'Admin');
    const smtp = form(page, 'smtp');
    await smtp.getByLabel('Host').fill('smtp.example.test');
    await smtp.getByLabel('Port').fill('587');
    await smtp.getByLabel('Username').fill('mailer');
    await smtp.getByLabel('Password').fill('smtp-pass-Qv4');
    await smtp.getByLabel('From address').fill('stevedore@example.test');
    await smtp.getByLabel('Enabled').check();
    await smtp.getByRole('button', { name: 'Save SMTP relay' }).click();
    await page.getByText('Password set (never shown).').waitFor();
    expect((await admin.get('/api/admin/smtp')).body).to.include({ host: 'smtp.example.test', port: 587, username: 'mailer', hasPassword: true, enabled: true });
    expect(await form(page, 'smtp').getByLabel('Password').inputValue()).to.equal('');

    await page.getByRole('button', { name: 'New chat channel' }).click();
    const chat = form(page, 'create-chat-channels');
    await chat.getByLabel(/^Name\b/).fill('ops-room');
    await chat.getByLabel('Webhook URL').fill('https://chat.example.test/hooks/T0K3N-chat');
    await chat.getByRole('button', { name: 'Create chat channel' }).click();
    await page.locator('tr[data-item="ops-room"]').waitFor();
    expect(await page.locator('tr[data-item="ops-room"]').innerText()).to.include('set (never shown)');
    expect((await admin.get('/api/admin/chat-channels')).body.items.map((c: any) => c.name)).to.include('ops-room');
    const html = await page.content();
    expect(html).to.not.include('smtp-pass-Qv4');
    expect(html).to.not.include('T0K3N-chat');
  });

  it("creates a webhook with a header and edits it: the header's value is write-only, kept unless retyped", async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/webhooks`, 'Webhooks');
    await page.getByRole('button', { name: 'New webhook' }).click();
    const f = form(page, 'create-webhooks');
    await f.getByLabel(/^Name\b/).fill('relay');
    await f.getByLabel('URL').fill('https://hooks.example.test/in');
    await f.getByRole('button', { name: 'Add to Headers' }).click();
    await f.getByLabel('Headers name 1').fill('Authorization');
    await f.getByLabel('Headers value 1').fill('Bearer first-Hk1');
    await f.getByRole('group', { name: 'Event types' }).getByLabel('deployment.failed').check();
    await f.getByRole('button', { name: 'Create webhook' }).click();
    await page.locator('tr[data-item="relay"]').waitFor();
    const sealedValue = async () => {
      const row = await svc.services.db('webhook_subscriptions').where({ environmentId: envId, name: 'relay' }).first();
      return { value: svc.services.secretBox.open(row.headers.Authorization), enabled: row.enabled, eventTypes: row.eventTypes };
    };
    expect(await sealedValue()).to.deep.include({ value: 'Bearer first-Hk1' });

    // an edit of another field leaves the header as stored; its value is never shown
    await page.getByRole('button', { name: 'Edit relay' }).click();
    const edit = form(page, 'edit-webhooks-relay');
    expect(await edit.getByLabel('Headers name 1').inputValue()).to.equal('Authorization');
    expect(await edit.getByLabel('Headers value 1').inputValue()).to.equal('');
    await edit.getByLabel('Enabled').uncheck();
    await edit.getByRole('button', { name: 'Save relay' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await sealedValue()).to.deep.include({ value: 'Bearer first-Hk1', enabled: false });
    // a value typed replaces it
    await page.getByRole('button', { name: 'Edit relay' }).click();
    await edit.getByLabel('Headers value 1').fill('Bearer second-Hk2');
    await edit.getByRole('button', { name: 'Save relay' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await sealedValue()).value).to.equal('Bearer second-Hk2');
    const html = await page.content();
    expect(html).to.not.include('first-Hk1');
    expect(html).to.not.include('second-Hk2');
  });

  it("shows the newer tags of a service's image from its registry and deploys one with its button", async () => {
    const reg = await startLocalRegistry();
    try {
      for (const t of ['1.4.0', '1.4.1', '1.5.0', 'latest']) await reg.push('shop/updates', t);
      const registry = await admin.post(`/api/environments/${envId}/registries`, { name: 'updates-reg', type: 'generic', registryUrl: reg.url });
      expect(registry.status, registry.text).to.equal(201);
      const image = await admin.post(`/api/environments/${envId}/container-images`, { imageName: `${reg.host}/shop/updates`, registryConnectionId: registry.body.id });
      expect(image.status, image.text).to.equal(201);
      const service = await admin.post(`/api/environments/${envId}/services`, { name: 'updatable', containerImageId: image.body.id, imageTag: '1.4.0' });
      expect(service.status, service.text).to.equal(201);
      // a deployment to deploy to (its server is never reached: the plan is what this test reads)
      const host = await admin.post(`/api/environments/${envId}/servers`, { name: 'updates-host', hostname: 'updates-host.example.test' });
      expect((await admin.post(`/api/services/${service.body.id}/deployments`, { serverId: host.body.id, containerName: 'updatable-1' })).status).to.equal(201);

      // a viewer sees the newer tags, and no button to deploy them
      const viewerPage = await signIn(viewerEmail);
      await open(viewerPage, `/env/${envId}/services/${service.body.id}`, 'Service');
      const viewerList = viewerPage.getByRole('list', { name: 'Newer tags' });
      await viewerList.locator('li[data-tag="1.5.0"]').waitFor();
      expect(await viewerList.getByRole('button').count()).to.equal(0);

      const page = await signIn();
      await open(page, `/env/${envId}/services/${service.body.id}`, 'Service');
      const updates = page.getByRole('region', { name: 'Image updates' });
      const list = updates.getByRole('list', { name: 'Newer tags' });
      await list.locator('li[data-tag="1.5.0"]').waitFor();
      // what the API reports as newer than 1.4.0, newest first; 1.4.0 and latest are not offered
      expect(await list.locator('li').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-tag')))).to.deep.equal(['1.5.0', '1.4.1']);
      expect(await updates.innerText()).to.contain('2 newer tags');

      await list.getByRole('button', { name: 'Deploy 1.5.0' }).click();
      // the deploy went through the deploy route: a plan for 1.5.0, followed on the page
      const audit = await until('the deploy audited', async () => (await svc.services.db('audit_logs')
        .where({ resourceId: service.body.id, action: 'deployService' })).find((a: any) => a.details.imageTag === '1.5.0'));
      const plan = await admin.get(`/api/deployment-plans/${audit.details.planId}`);
      expect(plan.status, plan.text).to.equal(200);
      expect(JSON.stringify(plan.body)).to.contain('1.5.0');
      await page.locator(`[data-plan="${audit.details.planId}"]`).waitFor();
      // the service now wants 1.5.0: nothing newer is left to offer
      expect((await admin.get(`/api/services/${service.body.id}`)).body.imageTag).to.equal('1.5.0');
      await updates.getByText('no newer tag in the registry').waitFor();
    } finally {
      await reg.stop();
    }
  });

  it("shows a service's health checks with their alert state and latest results, live as a check goes down and recovers", async () => {
    const server = (await admin.post(`/api/environments/${envId}/servers`, { name: 'checked-host', hostname: 'checked-host.example.test' })).body;
    const service = (await admin.post(`/api/environments/${envId}/services`, { name: 'checked', containerImageId: imageId })).body;
    const other = (await admin.post(`/api/environments/${envId}/services`, { name: 'not-checked', containerImageId: imageId })).body;
    const dep = (await admin.post(`/api/services/${service.id}/deployments`, { serverId: server.id, containerName: 'checked-1' })).body;
    const otherDep = (await admin.post(`/api/services/${other.id}/deployments`, { serverId: server.id, containerName: 'not-checked-1' })).body;
    // results as the health sweep makes and records them (no Docker here: the containers are missing)
    const serverRow = (await svc.services.servers.findById(server.id))!;
    const policy = { failuresBeforeDown: 2, successesBeforeUp: 1, reminderIntervalSec: 0 };
    const check = async (depId: string, look: any) =>
      recordCheck(svc.services, containerCheck(serverRow, (await svc.services.deployments.findById(depId))!, look, 7), policy);
    await check(otherDep.id, undefined);
    await check(dep.id, undefined);
    await check(dep.id, undefined);
    const stored = (await admin.get(`/api/environments/${envId}/health-checks`)).body.items.find((c: any) => c.deploymentId === dep.id);
    expect(stored).to.include({ status: 'down', failures: 2, lastResult: 'failed', lastError: 'the container does not exist' });

    const page = await signIn(viewerEmail);
    await open(page, `/env/${envId}/services/${service.id}`, 'Service');
    const panel = page.getByRole('region', { name: 'Health checks and alerts' });
    const row = panel.locator(`tr[data-check="container:${dep.id}"]`);
    await row.waitFor();
    expect(await panel.getByTestId('alert-summary').innerText()).to.equal('1 of 1 check down: alerting.');
    const cells = await row.locator('th, td').allInnerTexts();
    expect(cells[0]).to.equal('container checked-1 on checked-host');
    expect(cells[2]).to.match(/^down since \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(cells[3]).to.equal('2');
    expect(cells[4]).to.equal('failed the container does not exist');
    // only this service's checks: the other service's deployment is not in it
    expect(await panel.locator(`tr[data-check="container:${otherDep.id}"]`).count()).to.equal(0);
    expect(await panel.getByRole('list', { name: 'Latest results' }).locator('li').count()).to.equal(2);

    // the container runs again: the recovery comes through the event stream, no reload
    await check(dep.id, { State: 'running', Status: 'Up 3 seconds' });
    await panel.getByTestId('alert-summary').filter({ hasText: 'The check is up.' }).waitFor();
    expect(await row.locator('td').nth(1).innerText()).to.equal('up');
    expect(await panel.getByRole('list', { name: 'Latest results' }).locator('li').count()).to.equal(3);
    expect((await admin.get(`/api/environments/${envId}/health-checks`)).body.items.find((c: any) => c.deploymentId === dep.id)).to.include({ status: 'up' });
    for (const s of [service, other]) await admin.delete(`/api/services/${s.id}`);
    await admin.delete(`/api/servers/${server.id}`);
  });

  it('lays the topology out with service → server placement, no edge crossing a box', async () => {
    const env = (await createEnvironment(admin, 'laid-out')).id;
    const servers: Record<string, string> = {};
    for (const n of ['a1', 'a2', 'a3']) servers[n] = (await admin.post(`/api/environments/${env}/servers`, { name: n, hostname: `${n}.example.test` })).body.id;
    const img = (await admin.post(`/api/environments/${env}/container-images`, { imageName: 'registry.example.test/shop/api' })).body.id;
    const services: Record<string, string> = {};
    for (const n of ['front', 'api', 'worker']) services[n] = (await admin.post(`/api/environments/${env}/services`, { name: n, containerImageId: img })).body.id;
    const placed = [['front', 'a1'], ['front', 'a2'], ['api', 'a2'], ['api', 'a3'], ['worker', 'a1'], ['worker', 'a3']];
    for (const [svcName, srv] of placed) {
      const res = await admin.post(`/api/services/${services[svcName!]}/deployments`, { serverId: servers[srv!], containerName: `${svcName}-${srv}` });
      expect(res.status, res.text).to.equal(201);
    }
    const link = await admin.post('/api/connections', { environmentId: env, from: { kind: 'Service', id: services.front }, to: { kind: 'Server', id: servers.a3 }, label: 'metrics' });
    expect(link.status, link.text).to.equal(201);

    const page = await signIn();
    await open(page, `/env/${env}/topology`, 'Topology');
    await page.getByTestId('topology-placements').waitFor();
    expect((await page.getByTestId('topology-placements').innerText()).split('\n').sort())
      .to.deep.equal(placed.map(([a, b]) => `${a} runs on ${b}`).sort());
    expect(await page.getByTestId('topology-links').innerText()).to.equal('front → a3 connection: metrics');
    expect(await page.locator('svg.topology g[data-kind="placement"]').count()).to.equal(placed.length);
    // every segment of every edge keeps out of every box but its own two ends' (1 px of slack at their borders)
    const problems = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const boxes = [...doc.querySelectorAll('svg.topology g.node')].map((g: any) => {
        const r = g.querySelector('rect').getBBox();
        const [x, y] = g.getAttribute('transform').match(/-?[\d.]+/g).map(Number);
        return { name: g.querySelector('text').textContent, x: x + 1, y: y + 1, w: r.width - 2, h: r.height - 2 };
      });
      const out: string[] = [];
      let segments = 0;
      for (const g of [...doc.querySelectorAll('svg.topology g[data-edge]')] as any[]) {
        for (const l of [...g.querySelectorAll('line')] as any[]) {
          segments++;
          const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((k) => Number(l.getAttribute(k)));
          const dx = x2 - x1, dy = y2 - y1;
          boxes: for (const b of boxes) { // Liang-Barsky: does the segment enter the rectangle?
            let t0 = 0, t1 = 1;
            for (const [p, q] of [[-dx, x1 - b.x], [dx, b.x + b.w - x1], [-dy, y1 - b.y], [dy, b.y + b.h - y1]] as Array<[number, number]>) {
              if (p === 0) { if (q < 0) continue boxes; continue; }
              const t = q / p;
              if (p < 0) { if (t > t1) continue boxes; if (t > t0) t0 = t; } else { if (t < t0) continue boxes; if (t < t1) t1 = t; }
            }
            if (t0 < t1) out.push(`${g.getAttribute("data-edge")} crosses ${b.name} ${JSON.stringify(b)} ${[x1, y1, x2, y2]}`);
          }
        }
      }
      return { segments, out, boxes: boxes.length };
    });
    expect(problems.boxes).to.equal(6);
    expect(problems.segments).to.be.at.least(placed.length + 1);
    // the ends' own boxes are touched at their borders only: a crossing would be listed here
    expect(problems.out).to.deep.equal([]);
  });

  it("edits a service's env in the page and stores it", async () => {
    const created = await admin.post(`/api/environments/${envId}/services`, { name: 'billing', containerImageId: imageId, env: { MODE: 'one', KEEP: 'k' } });
    expect(created.status, created.text).to.equal(201);
    const page = await signIn();
    await open(page, `/env/${envId}/services/${created.body.id}`, 'Service');
    await page.getByRole('button', { name: 'Edit spec' }).click();
    const f = form(page, 'edit-service');
    // a row per variable, filled in with the stored ones
    expect(await f.locator('[data-row="KEEP"] input').first().inputValue()).to.equal('KEEP');
    await f.locator('[data-row="MODE"] input').nth(1).fill('two');
    await f.getByRole('button', { name: 'Add to Env' }).click();
    await f.getByLabel('Env name 3').fill('ADDED');
    await f.getByLabel('Env value 3').fill('yes');
    await f.getByRole('button', { name: 'Save spec' }).click();
    await page.locator('[data-testid="service-spec"] [data-env="ADDED"]').waitFor();
    const stored = (await admin.get(`/api/services/${created.body.id}`)).body;
    expect(stored.env).to.deep.equal({ MODE: 'two', KEEP: 'k', ADDED: 'yes' });
  });

  it("sets a service's restart policy in the edit form: a value Docker would not take is named under the field, on-failure:3 is stored", async () => {
    const created = await admin.post(`/api/environments/${envId}/services`, { name: 'worker', containerImageId: imageId });
    expect(created.status, created.text).to.equal(201);
    const page = await signIn();
    await open(page, `/env/${envId}/services/${created.body.id}`, 'Service');
    expect(await page.getByTestId('restart-policy').innerText()).to.equal('unless-stopped');
    await page.getByRole('button', { name: 'Edit spec' }).click();
    const f = form(page, 'edit-service');
    const field = f.getByLabel('Restart policy');
    expect(await field.inputValue()).to.equal('unless-stopped');
    // Docker's policies offered as it is typed (the schema's x-suggestions), any value the pattern allows taken
    const listId = await field.getAttribute('list');
    expect(await f.locator(`datalist[id="${listId}"] option`).evaluateAll((os) => os.map((o) => (o as any).value)))
      .to.deep.equal(['no', 'always', 'unless-stopped', 'on-failure', 'on-failure:3']);
    await field.fill('sometimes');
    await f.getByRole('button', { name: 'Save spec' }).click();
    await f.locator('[data-field-error="restartPolicy"]').waitFor();
    expect(await field.getAttribute('aria-invalid')).to.equal('true');
    await field.fill('on-failure:3');
    await f.getByRole('button', { name: 'Save spec' }).click();
    await page.getByTestId('restart-policy').getByText('on-failure:3', { exact: true }).waitFor();
    expect((await admin.get(`/api/services/${created.body.id}`)).body).to.include({ restartPolicy: 'on-failure:3', generation: 2 });
    expect(await svc.services.db('services').where({ id: created.body.id }).first('restartPolicy')).to.deep.equal({ restartPolicy: 'on-failure:3' });
    const audits = await svc.services.db('auditLogs').where({ resourceId: created.body.id, action: 'updateService' });
    expect(audits.map((a: { details: { changed: string[] } }) => a.details.changed), 'the refused value was never sent').to.deep.equal([['restartPolicy']]);
  });

  it("sets a service's ingress in the edit form: hosts, port and TLS from a secret are stored, a bad host is named under its field", async () => {
    const created = await admin.post(`/api/environments/${envId}/services`, { name: 'site', containerImageId: imageId });
    expect(created.status, created.text).to.equal(201);
    const page = await signIn();
    await open(page, `/env/${envId}/services/${created.body.id}`, 'Service');
    expect(await page.getByTestId('ingress').innerText()).to.equal('none');
    await page.getByRole('button', { name: 'Edit spec' }).click();
    const f = form(page, 'edit-service');
    await f.getByLabel('Set ingress').check();
    await f.getByRole('button', { name: 'Add to Hosts' }).click();
    await f.getByLabel('Hosts 1', { exact: true }).fill('not a host');
    // the one number field named Port (the ports list's inputs are text); its label also carries the required mark
    await f.getByRole('spinbutton', { name: /^Port/ }).fill('8080');
    const tls = f.getByLabel('TLS', { exact: true });
    const listId = await tls.getAttribute('list');
    expect(await f.locator(`datalist[id="${listId}"] option`).evaluateAll((os) => os.map((o) => (o as any).value))).to.include.members(['auto', 'off']);
    await tls.fill('{"secretRef": "SITE_TLS"}');
    await f.getByRole('button', { name: 'Save spec' }).click();
    await f.locator('[data-field-error^="ingress.hosts"]').first().waitFor();
    await f.getByLabel('Hosts 1', { exact: true }).fill('site.example.com');
    await f.getByRole('button', { name: 'Save spec' }).click();
    await page.getByTestId('ingress').getByText('site.example.com').waitFor();
    const stored = (await admin.get(`/api/services/${created.body.id}`)).body;
    expect(stored.ingress).to.deep.equal({ hosts: ['site.example.com'], port: 8080, path: '/', tls: { secretRef: 'SITE_TLS' } });
    // the service page's ingress table: the certificate names the missing secret
    await page.getByTestId('ingress-status').getByText('no secret SITE_TLS in the environment').waitFor();
  });

  it("a secret set and rotated in the page is stored and never in any page's HTML", async () => {
    const first = `pg-pass-${Date.now().toString(36)}-Zq1`;
    const second = `pg-pass-${Date.now().toString(36)}-Wk2`;
    const page = await signIn();
    await open(page, `/env/${envId}/secrets`, 'Secrets');
    await page.getByRole('button', { name: 'New secret' }).click();
    const f = form(page, 'create-secrets');
    await f.getByLabel('Key').fill('DB_PASSWORD');
    await f.getByLabel('Value').fill(first);
    await f.getByRole('button', { name: 'Create secret' }).click();
    await page.locator('tr[data-item="DB_PASSWORD"]').waitFor();
    // rotate: the edit form shows the value empty (write-only) and takes a new one
    await page.getByRole('button', { name: 'Edit DB_PASSWORD' }).click();
    const edit = form(page, 'edit-secrets-DB_PASSWORD');
    expect(await edit.getByLabel('Value').inputValue()).to.equal('');
    await edit.getByLabel('Value').fill(second);
    await edit.getByRole('button', { name: 'Save DB_PASSWORD' }).click();
    await edit.waitFor({ state: 'detached' });
    const row = await until('the rotated secret stored', async () => {
      const r = await svc.services.db('secrets').where({ environmentId: envId, key: 'DB_PASSWORD' }).first();
      return r && svc.services.secretBox.open(r.valueSealed) === second && r;
    });
    expect(row.valueSealed).to.not.include(second);
    for (const path of [...ENV_PAGES.map((p) => `/env/${envId}${p}`), '/environments']) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      const html = await page.content();
      expect(html, path).to.not.include(first);
      expect(html, path).to.not.include(second);
    }
  });

  it('a viewer sees no create or edit control on any page', async () => {
    const shop = (await admin.post(`/api/environments/${envId}/services`, { name: 'viewed', containerImageId: imageId })).body;
    const page = await signIn(viewerEmail);
    const visible = ENV_PAGES.filter((p) => !['/settings', '/admin', '/system', '/users', '/tokens'].includes(p));
    for (const path of [...visible.map((p) => `/env/${envId}${p}`), `/env/${envId}/services/${shop.id}`, '/environments']) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      const controls = page.getByRole('button', { name: /^(New |Edit|Delete|Save|Add|Remove|Create|Test|Send|Deploy|Revert|Forget|Run now)/ });
      expect(await controls.count(), `${path}: ${await controls.allInnerTexts()}`).to.equal(0);
      expect(await page.locator('form.schema-form').count(), path).to.equal(0);
    }
    // the admin pages are not offered to a viewer
    await open(page, `/env/${envId}`, 'Overview');
    const nav = page.getByRole('navigation', { name: 'Environment pages' });
    expect(await nav.getByRole('link', { name: 'Overview' }).count()).to.equal(1);
    expect(await nav.getByRole('link', { name: /^(Admin|Settings|System settings)$/ }).count()).to.equal(0);
  });

  it('a field a manifest owns cannot be edited in the page and names its file', async () => {
    const page = await signIn();
    await open(page, `/env/${ownedEnvId}/servers`, 'Servers');
    const row = page.locator('tr[data-item="edge-1"]');
    expect(await row.innerText()).to.include('servers.yaml');
    expect(await row.getByRole('button', { name: /^Delete/ }).count()).to.equal(0); // the manifest declares the whole object
    await row.getByRole('button', { name: 'Edit edge-1' }).click();
    const f = form(page, 'edit-servers-edge-1');
    const hostname = f.getByLabel(/^Hostname/);
    expect(await hostname.isDisabled()).to.equal(true);
    expect(await hostname.inputValue()).to.equal('edge-1.example.test');
    const help = await f.locator(`#${await hostname.getAttribute('id')}-help`).innerText();
    expect(help).to.include('Set by the manifest servers.yaml');
    // what the manifest leaves out stays editable, and is stored
    expect(await f.getByLabel('SSH port').isDisabled()).to.equal(false);
    await f.getByLabel('SSH port').fill('2200');
    await f.getByRole('button', { name: 'Save edge-1' }).click();
    await f.waitFor({ state: 'detached' });
    const stored = (await admin.get(`/api/environments/${ownedEnvId}/servers`)).body.items[0];
    expect(stored).to.include({ hostname: 'edge-1.example.test', sshPort: 2200 });
  });

  it("shows each setting with its schema's description and stores a change", async () => {
    const page = await signIn();
    await open(page, `/env/${envId}/settings`, 'Settings');
    const f = form(page, 'settings-operations');
    const drift = f.getByLabel('Drift policy');
    const help = await f.locator(`#${await drift.getAttribute('id')}-help`).innerText();
    expect(help).to.equal('A container that differs from its desired state: ignored, reported as Drifted, or redeployed.');
    await drift.selectOption('heal');
    await f.getByRole('button', { name: 'Save operations' }).click();
    await page.getByText('Saved operations.').waitFor();
    expect((await admin.get(`/api/environments/${envId}/settings/operations`)).body.driftPolicy).to.equal('heal');
  });

  it('shows the manifests revision and audit details as text, within a 1,366 px page', async () => {
    const page = await signIn('admin@example.test', 1366);
    await open(page, `/env/${ownedEnvId}`, 'Overview');
    const status = (await admin.get('/api/manifests/status')).body;
    const hash: string = status.lastApplied.revision.contentHash;
    const shown = page.locator('section[aria-labelledby="manifests-h"]');
    await shown.getByText('Applied revision').waitFor();
    expect(await shown.innerText()).to.include(`content ${hash.replace(/^sha256:/, '').slice(0, 12)}`).and.not.include('{');
    expect((await widths(page))[0]).to.be.at.most(1366);
    await open(page, `/env/${envId}/audit`, 'Audit log');
    await page.locator('tbody tr').first().waitFor();
    const details = await page.locator('tbody td:last-child').allInnerTexts();
    expect(details.length).to.be.greaterThan(0);
    for (const d of details) expect(d).to.not.match(/[{}"]/);
    // a timestamp in ISO 8601 order, 24-hour
    expect(await page.locator('tbody tr td').first().innerText()).to.match(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect((await widths(page))[0]).to.be.at.most(1366);
  });

  it("axe finds no serious or critical violation on the kinds' pages, Metrics, Admin and Environments", async () => {
    const page = await signIn();
    const paths = ['/servers', '/metrics', '/services', '/images', '/registries', '/config-files', '/secrets', '/vars', '/webhooks',
      '/databases', '/jobs', '/admin', '/settings', '/git', '/system'].map((p) => `/env/${envId}${p}`);
    for (const path of [...paths, '/environments']) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      expect(await seriousViolations(page), path).to.deep.equal([]);
    }
  });

  it('at 375 px no page scrolls sideways, and axe finds no serious violation', async () => {
    const service = (await admin.post(`/api/environments/${envId}/services`, {
      name: 'a-service-with-a-rather-long-name-for-a-phone', containerImageId: imageId,
      env: { A_LONG_VARIABLE_NAME_THAT_GOES_ON: 'and-a-value-that-goes-on-and-on-without-any-space-to-break-it-at-all' },
    })).body;
    const server = await admin.post(`/api/environments/${envId}/servers`, { name: 'phone-wide-server-name', hostname: 'a-rather-long-host-name-for-a-phone.example.test', tags: ['role=web'] });
    expect(server.status, server.text).to.equal(201);
    const placed = await admin.post(`/api/services/${service.id}/deployments`, { serverId: server.body.id, containerName: 'a-container-name-that-is-long-too' });
    expect(placed.status, placed.text).to.equal(201);
    const page = await signIn('admin@example.test', 375);
    const paths = [...ENV_PAGES.map((p) => `/env/${envId}${p}`), `/env/${envId}/services/${service.id}`, '/environments', `/env/${ownedEnvId}`];
    for (const path of paths) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await settled(page);
      const [scroll, inner] = await widths(page);
      expect(scroll, `${path} is ${scroll} px wide at ${inner} px`).to.be.at.most(inner);
    }
    // the forms too, open
    for (const [path, button] of [[`/env/${envId}/services`, 'New service'], [`/env/${envId}/servers`, 'New server'], [`/env/${envId}/webhooks`, 'New webhook']]) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('button', { name: button }).click();
      await page.locator('form.schema-form').waitFor();
      const [scroll, inner] = await widths(page);
      expect(scroll, `${path} with its form is ${scroll} px wide`).to.be.at.most(inner);
      expect(await seriousViolations(page), path).to.deep.equal([]);
    }
  });
});
