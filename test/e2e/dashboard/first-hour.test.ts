// A new user's first hour in the page only, in Debian's Chromium against the real service and
// PostgreSQL (no server of the fleet: SKIP_FLEET=1 runs it): a registry on this machine, refused
// by the outgoing guard, is created once the allow-list is set on the System settings page; an
// environment's Git source is set in its page and a broken commit's error shows there and on the
// environment's overview; an empty overview leads onward; plan pages name the servers of their
// steps and waves; the servers list shows labels; secrets are password inputs; and every route of
// the dashboard's route table fits 375 px without sideways scroll.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { seriousViolations } from '../../support/axe.js';
import { until } from '../../support/until.js';
import { bootstrapAdmin, createEnvironment } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { signIn as signInPage } from '../../support/sign-in.js';
import { startLocalRegistry, type LocalRegistry } from '../../support/local-registry.js';
import { createRepo, type TestRepo } from '../../support/git-repo.js';
import { closedPort } from '../../support/ports.js';

const ROUTES_FILE = fileURLToPath(new URL('../../../dashboard/src/routes.ts', import.meta.url));

/**
 * The paths of the dashboard's route table (dashboard/src/routes.ts), read from its source: one
 * per entry, a kind's list page (`kind('servers')`) as the path it stands for. Fails when an
 * entry is not understood, so a route added later is walked too or the test says why not.
 */
export function routeTablePaths(): string[] {
  const src = readFileSync(ROUTES_FILE, 'utf8');
  const table = src.slice(src.indexOf('export const routes'));
  const entries = table.split('\n').filter((l) => /^\s+(\{|kind\()/.test(l));
  return entries.map((line) => {
    const kind = /kind\('([^']+)'\)/.exec(line);
    if (kind) return `/env/:envId/${kind[1]}`;
    const path = /path: '([^']+)'/.exec(line);
    if (!path) throw new Error(`a route table line the test does not understand: ${line.trim()}`);
    return path[1];
  });
}

const widths = (page: Page) => page.evaluate(() => {
  const w = globalThis as any;
  return [w.document.documentElement.scrollWidth as number, w.innerWidth as number];
});
/** Waits until no part of the page still says it is loading. */
const settled = (page: Page) => page.waitForFunction(() => ![...(globalThis as any).document.querySelectorAll('[role="status"]')]
  .some((e: any) => /^(Loading|Asking)/.test(e.textContent)));
const form = (page: Page, name: string) => page.locator(`form[data-form="${name}"]`);

describe('the first hour in the page (e2e)', function () {
  this.timeout(240_000);
  let svc: TestService;
  let admin: HttpClient;
  let browser: Browser;
  let registry: LocalRegistry;
  let repo: TestRepo;
  let env: { id: string; name: string };
  let emptyEnv: { id: string; name: string };
  let serviceId: string;
  let planId: string;

  const signIn = async (width = 1280, email = 'admin@example.test'): Promise<Page> =>
    signInPage(await (await browser.newContext({ bypassCSP: true, viewport: { width, height: 900 } })).newPage(), svc.url, email);
  const open = async (page: Page, path: string, heading: string) => {
    await page.goto(`${svc.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };

  before(async () => {
    repo = createRepo();
    // the outgoing guard as shipped: no allow-list (a registry on loopback is refused); file://
    // Git sources only under GIT_FILE_ROOTS
    svc = await startTestService({ OUTGOING_ALLOW_LIST: '', GIT_FILE_ROOTS: dirname(repo.bare), SCHEDULER_GIT_POLL_SEC: '1' });
    admin = await bootstrapAdmin(svc.http);
    env = await createEnvironment(admin, 'first-hour');
    emptyEnv = await createEnvironment(admin, 'nothing-yet');
    registry = await startLocalRegistry();
    browser = await launchBrowser();

    // two servers nothing answers on (their steps fail at once), a canary service on both, one deploy: a plan with waves
    const port = Number(new URL(await closedPort()).port);
    const servers = [];
    for (const name of ['edge-a', 'edge-b']) {
      const r = await admin.post(`/api/environments/${env.id}/servers`, { name, hostname: '127.0.0.1', sshPort: port, labels: { role: 'edge', zone: name.slice(-1) } });
      expect(r.status, r.text).to.equal(201);
      servers.push(r.body);
    }
    const image = await admin.post(`/api/environments/${env.id}/container-images`, { imageName: 'registry.example.test/shop/web' });
    expect(image.status, image.text).to.equal(201);
    const service = await admin.post(`/api/environments/${env.id}/services`, {
      name: 'web', containerImageId: image.body.id, imageTag: '1.0', rollout: { strategy: 'canary', steps: [{ servers: 1 }, { pause: true }] },
    });
    expect(service.status, service.text).to.equal(201);
    serviceId = service.body.id;
    for (const s of servers) {
      const d = await admin.post(`/api/services/${serviceId}/deployments`, { serverId: s.id, containerName: `web-${s.name}` });
      expect(d.status, d.text).to.equal(201);
    }
    const deploy = await admin.post(`/api/services/${serviceId}/deploy`, { imageTag: '1.1' });
    expect(deploy.status, deploy.text).to.be.oneOf([200, 201, 202]);
    planId = deploy.body.id;
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    await registry?.stop();
    repo?.remove();
  });

  it("a registry on this machine is refused until the allow-list is set on the System settings page, each field with its schema's description", async () => {
    const page = await signIn();
    await open(page, `/env/${env.id}/registries`, 'Registries');
    await page.getByRole('button', { name: 'New registry' }).click();
    const f = form(page, 'create-registries');
    await f.getByLabel(/^Name\b/).fill('local');
    await f.getByLabel('Type').selectOption('generic');
    await f.getByLabel('Registry URL').fill(registry.url);
    // secrets are password inputs
    expect(await f.getByLabel('Password').getAttribute('type')).to.equal('password');
    expect(await f.getByLabel('Token').getAttribute('type')).to.equal('password');
    await f.getByRole('button', { name: 'Create registry' }).click();
    const refusal = await f.locator('[data-field-error="registryUrl"]').innerText();
    expect(refusal).to.match(/refused/);
    expect((await admin.get(`/api/environments/${env.id}/registries`)).body.items).to.have.length(0);

    // System settings: every field's help is its schema's description
    const system = await signIn();
    await open(system, `/env/${env.id}/system`, 'System settings');
    const schema = (await admin.get('/api/openapi.json')).body.paths['/api/settings/system'].patch.requestBody.content['application/json'].schema;
    const props = schema.properties ?? (await admin.get('/api/openapi.json')).body.components.schemas[schema.$ref.split('/').pop()].properties;
    const s = form(system, 'system-settings');
    const allow = s.locator('fieldset').filter({ has: system.getByText('Outgoing allow list', { exact: true }) });
    // a description is shown as a sentence: a full stop added unless it ends with one
    const sentence = (d: string) => (/[.)]$/.test(d) ? d : `${d}.`);
    expect(await allow.locator('.help').first().innerText()).to.equal(sentence(props.outgoingAllowList.description));
    const retries = s.getByLabel('Webhook max retries');
    expect(await s.locator(`#${await retries.getAttribute('id')}-help`).innerText()).to.equal(sentence(props.webhookMaxRetries.description));
    expect(await s.getByLabel('Registry access token').getAttribute('type')).to.equal('password');
    await allow.getByRole('button', { name: 'Add to Outgoing allow list' }).click();
    await s.getByLabel('Outgoing allow list 1').fill('127.0.0.1');
    await s.getByRole('button', { name: 'Save system settings' }).click();
    await system.getByText('Saved the system settings.').waitFor();
    expect((await admin.get('/api/settings/system')).body.outgoingAllowList).to.deep.equal(['127.0.0.1']);

    // the same form, sent again: created, and its Test reaches the registry
    await f.getByRole('button', { name: 'Create registry' }).click();
    await page.locator('tr[data-item="local"]').waitFor();
    const stored = (await admin.get(`/api/environments/${env.id}/registries`)).body.items;
    expect(stored.map((r: any) => r.registryUrl)).to.deep.equal([registry.url]);
    await page.locator('tr[data-item="local"]').getByRole('button', { name: 'Test local' }).click();
    await page.locator('tr[data-item="local"] .said').filter({ hasText: /^OK/ }).waitFor();
    expect(await seriousViolations(system)).to.deep.equal([]);
  });

  it("a Git source set in its page shows a broken commit's error there and on the environment's overview", async () => {
    repo.commit({ 'broken.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: BAD, environment: elsewhere}\nspec: {value: "x"}\n` }, 'a broken commit');
    const page = await signIn();
    await open(page, `/env/${env.id}/git`, 'Git source');
    await page.getByText('This environment follows no Git repository').waitFor();
    const f = form(page, 'git-source');
    expect(await f.getByLabel('Token').getAttribute('type')).to.equal('password');
    expect(await f.getByLabel('SSH private key').getAttribute('data-secret')).to.equal('true');
    await f.getByLabel(/^URL\b/).fill(repo.url);
    await f.getByLabel('Ref', { exact: true }).fill('main');
    await f.getByLabel('Poll interval (s)').fill('0');
    await f.getByRole('button', { name: 'Follow this repository' }).click();
    // the sync ends Failed: its error, with file:line, on the Git source's page
    const error = page.getByTestId('git-error');
    await error.waitFor({ timeout: 30_000 });
    // (the save's sync and the poller's first look may run one after the other: wait for both to end)
    const status = await until('the source Failed', async () => {
      const st = (await admin.get(`/api/environments/${env.id}/manifests-source/status`)).body;
      return st.sync === 'Failed' && st;
    }, { timeoutMs: 30_000, everyMs: 200 });
    expect(await error.innerText()).to.include(status.error).and.match(/broken\.yaml:3/);
    await page.locator('[data-sync="Failed"]').first().waitFor();

    // and on the environment's page (its overview)
    const overview = await signIn();
    await open(overview, `/env/${env.id}`, 'Overview');
    const failed = overview.getByTestId('git-failed');
    await failed.waitFor();
    expect(await failed.innerText()).to.include(status.error);

    // repaired and synced from the page: Synced, the commit shown, the error gone from both pages
    const sha = repo.commit({ 'broken.yaml': null, 'vars.yaml': `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: GREETING, environment: ${env.name}}\nspec: {value: "hi"}\n` }, 'repaired');
    await page.getByRole('button', { name: 'What would the next sync change?' }).click();
    await page.getByTestId('git-diff').filter({ hasText: 'repaired' }).waitFor();
    expect(await page.getByTestId('git-diff').innerText()).to.match(/create\s+Var\s+GREETING/);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await page.locator('[data-sync="Synced"]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('git-status').innerText()).to.include(sha.slice(0, 12)).and.include('repaired');
    expect(await page.getByTestId('git-error').count()).to.equal(0);
    await overview.getByTestId('git-failed').waitFor({ state: 'detached' }); // the overview follows the sync event
    expect(await overview.getByTestId('git-line').innerText()).to.include(sha.slice(0, 12));
    expect(await seriousViolations(page)).to.deep.equal([]);
  });

  it('an empty environment leads onward: a first server, a first service', async () => {
    const page = await signIn();
    await open(page, `/env/${emptyEnv.id}`, 'Overview');
    const steps = page.getByTestId('first-steps');
    await steps.waitFor();
    await page.locator('[data-empty="servers"]').getByRole('link', { name: 'Add a first server' }).click();
    await page.getByRole('heading', { level: 1, name: 'Servers' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/env/${emptyEnv.id}/servers`);
    await page.goBack();
    await page.locator('[data-empty="services"]').getByRole('link', { name: 'create a first service' }).click();
    await page.getByRole('heading', { level: 1, name: 'Services' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal(`/env/${emptyEnv.id}/services`);
    // a service needs an image, and there is none: the empty list says so and leads there
    await page.locator('[data-empty="services"]').getByRole('link', { name: 'an image' }).click();
    await page.getByRole('heading', { level: 1, name: 'Images' }).waitFor();
    expect(await page.locator('[data-empty="images"]').innerText()).to.equal('No image yet. New image creates the first.');
  });

  it("plan pages name the servers of their steps and waves; the servers list shows labels", async () => {
    const page = await signIn();
    await open(page, `/env/${env.id}/plans/${planId}`, 'Deployment plan');
    const plan = (await admin.get(`/api/deployment-plans/${planId}`)).body;
    expect(plan.waves, 'a canary plan has waves').to.have.length.greaterThan(1);
    await page.locator('[data-step-server="edge-a"], [data-step-server="edge-b"]').first().waitFor();
    const stepServers = (await page.locator('[data-step-server]').evaluateAll((els) => els.map((e) => e.getAttribute('data-step-server')))).sort();
    expect(stepServers).to.deep.equal(['edge-a', 'edge-b']);
    for (const w of plan.waves) {
      const names = w.deployments.map((d: any) => (d.containerName === 'web-edge-a' ? 'edge-a' : 'edge-b'));
      const text = await page.locator(`[data-wave="${w.index}"]`).innerText();
      for (const n of names) expect(text, `wave ${w.index + 1}`).to.include(`${n} (web-${n})`);
    }
    expect(await page.locator('.plan').innerText()).to.not.match(/— → —/);

    // the service page names them too (its history)
    await open(page, `/env/${env.id}/services/${serviceId}`, 'Service');
    await until('the history rows', async () => (await page.locator('section[aria-labelledby="history-h"] tbody tr').count()) > 0, { timeoutMs: 20_000 });
    const history = await page.locator('section[aria-labelledby="history-h"] tbody').innerText();
    expect(history).to.match(/edge-[ab]/);

    await open(page, `/env/${env.id}/servers`, 'Servers');
    expect(await page.locator('tr[data-item="edge-a"] td[data-label="Labels"]').innerText()).to.equal('role=edge zone=a');
  });

  it('every route of the route table, and the page after a new environment, fits 375 px without sideways scroll', async () => {
    const paths = routeTablePaths();
    expect(paths.length).to.be.greaterThan(15);
    const fill = (p: string) => p.replace(':envId', env.id).replace(':serviceId', serviceId).replace(':planId', planId);
    const page = await signIn(375);
    const walked: string[] = [];
    for (const route of paths) {
      if (route === '/login') continue; // walked below, signed out
      const path = fill(route);
      expect(path, `${route}: a parameter the test cannot fill`).to.not.include(':');
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await settled(page);
      const [scroll, inner] = await widths(page);
      expect(scroll, `${route} is ${scroll} px wide at ${inner} px`).to.be.at.most(inner);
      walked.push(route);
    }
    // the states a first hour meets: the empty overview, the failed Git source, the sign-in page
    for (const path of [`/env/${emptyEnv.id}`, `/env/${emptyEnv.id}/git`]) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await settled(page);
      const [scroll, inner] = await widths(page);
      expect(scroll, `${path} is ${scroll} px wide at ${inner} px`).to.be.at.most(inner);
    }
    // the page shown after an environment is created (its public key and fingerprint)
    await page.goto(`${svc.url}/environments`);
    await page.getByRole('button', { name: 'New environment' }).click();
    await form(page, 'create-environment').getByLabel(/^Name\b/).fill('from-a-phone');
    await form(page, 'create-environment').getByLabel('Generate one').check();
    await form(page, 'create-environment').getByRole('button', { name: 'Create environment' }).click();
    await page.getByTestId('public-key').waitFor();
    const [scroll, inner] = await widths(page);
    expect(scroll, `the created environment's page is ${scroll} px wide at ${inner} px`).to.be.at.most(inner);
    const signedOut = await (await browser.newContext({ viewport: { width: 375, height: 800 } })).newPage();
    await signedOut.goto(`${svc.url}/login`);
    await signedOut.getByRole('heading', { level: 1 }).waitFor();
    const [s2, i2] = await widths(signedOut);
    expect(s2, `/login is ${s2} px wide`).to.be.at.most(i2);
    expect(walked.length).to.equal(paths.length - 1);
  });
});
