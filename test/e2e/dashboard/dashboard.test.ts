// The dashboard in Debian's Chromium against the real service and the fleet: sign in, the
// overview, a deploy followed live, drift healed with the button, a failing tag rolled back, a
// config file synced with the button, the viewer's read-only pages, and axe-core on each page.
import { mkdirSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { until } from '../../support/until.js';
import { seriousViolations } from '../../support/axe.js';
import { userWithRole } from '../../support/fixtures.js';
import { signIn as signInPage } from '../../support/sign-in.js';
import { serverExec } from '../../fleet/fleet.js';
import { addService, cleanup, containerImage, startWorld, type World } from '../deploy/deploy-world.js';

const QUICK_HEALTH = { test: ['CMD', 'true'], intervalSec: 1, timeoutSec: 30, retries: 3 };
// DASHBOARD_SCREENSHOTS=1 refreshes the pictures under docs/dashboard/ that only real servers give
// (drift, a revision diff); bench/dashboard-screenshots.ts writes every other one
const SHOTS = process.env.DASHBOARD_SCREENSHOTS === '1' ? 'docs/dashboard' : null;

describe('dashboard in a real browser (e2e)', function () {
  this.timeout(120_000);
  let w: World;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let web: Awaited<ReturnType<typeof addService>>;
  let container: string;
  // a config file attached to web, holding a secret the browser must never see
  const SECRET = `dash-tok-${Date.now().toString(36)}-Qx7`;
  let target: string;

  const shot = async (p: Page, name: string) => { if (SHOTS) await p.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true }); };
  const signIn = async (ctx: BrowserContext, email: string) => {
    const p = await signInPage(await ctx.newPage(), w.svc.url, email);
    await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    return p;
  };
  const open = async (p: Page, path: string, heading: string) => {
    await p.goto(`${w.svc.url}/env/${w.envId}${path}`);
    await p.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  before(async () => {
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    w = await startWorld();
    for (const id of Object.values(w.servers)) expect((await w.admin.post(`/api/servers/${id}/health`, {})).status).to.equal(200);
    web = await addService(w, 'web', { servers: ['s1'], healthCheck: QUICK_HEALTH });
    container = web.deployments[0].containerName;
    expect((await w.admin.post(`/api/services/${web.service.id}/deploy?wait=true`, { imageTag: 'v1' })).body.status).to.equal('succeeded');
    target = `/etc/dash-${w.tag}/web.conf`;
    expect((await w.admin.post(`/api/environments/${w.envId}/secrets`, { key: 'DASH_TOKEN', value: SECRET })).status).to.equal(201);
    expect((await w.admin.post(`/api/environments/${w.envId}/vars`, { key: 'DASH_MODE', value: 'first' })).status).to.equal(201);
    const file = await w.admin.post(`/api/environments/${w.envId}/config-files`, { name: 'web.conf', content: 'token=${DASH_TOKEN}\nmode=${DASH_MODE}\n' });
    expect(file.status, file.text).to.equal(201);
    const attached = await w.admin.post(`/api/config-files/${file.body.id}/attachments`, { serviceId: web.service.id, targetPath: target });
    expect(attached.status, attached.text).to.equal(201);
    // the running container lacks the file now: a look says so (whenever it comes, it would; made to come now)
    w.s.queue.add(`deployment/${web.deployments[0].id}`);
    await until('the attached file seen as drift', async () => {
      const d = await w.s.deployments.findById(web.deployments[0].id);
      return ((d!.conditions ?? []) as Array<{ type: string; status: string }>).some((c) => c.type === 'Drifted' && c.status === 'True');
    }, { timeoutMs: 30_000, everyMs: 100 });
    browser = await launchBrowser();
    // bypassCSP: axe-core is injected as an inline script, which the dashboard's policy forbids
    context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  });
  after(async () => {
    await browser?.close();
    await cleanup(w);
  });

  it('signs in and shows the three servers healthy', async () => {
    page = await signIn(context, 'admin@example.test');
    await page.getByRole('heading', { name: 'Servers (3)' }).waitFor();
    const rows = page.locator('tr[data-server]');
    expect(await rows.count()).to.equal(3);
    for (const text of await rows.allInnerTexts()) expect(text).to.match(/^s\d\s.*\shealthy\b/);
    // each deployment: its server, the tag it runs and its conditions (from GET .../overview): the
    // config file attached after the deploy is not mounted yet
    expect(await page.locator(`li[data-deployment="${container}"]`).innerText()).to.match(/^s1: v1\s+Drifted\s*SpecChanged: mounts/);
  });

  it("tests a server's SSH connection from the Servers page and shows its pinned host key", async () => {
    const ctx = await browser.newContext({ bypassCSP: true });
    try {
      const p = await signIn(ctx, 'admin@example.test');
      await open(p, '/servers', 'Servers');
      const row = p.locator('tr[data-item="s1"]');
      await row.getByRole('button', { name: 'Test connection s1' }).click();
      const said = await row.getByRole('status').filter({ hasText: /^Connected in \d+ ms/ }).innerText();
      const fingerprint = (await w.admin.get(`/api/servers/${w.servers.s1}`)).body.hostKeyFingerprint;
      expect(fingerprint).to.match(/^SHA256:/);
      expect(said).to.include(fingerprint);
      expect(await row.innerText()).to.include(fingerprint);
    } finally {
      await ctx.close();
    }
  });

  it("checks a rebuilt server's host key from its row and pins the presented one after a confirm that shows both; an operator has no such button", async () => {
    // s2 "rebuilt": the key pinned in the database is not the one the machine presents
    const presented = w.fleet.servers[1]!.hostKeyFingerprint!;
    const old = 'SHA256:b2xkLW1hY2hpbmUtYmVmb3JlLXRoZS1yZWJ1aWxkLWtleQ';
    await w.s.db('servers').where({ id: w.servers.s2 }).update({ hostKeyFingerprint: old });
    const ctx = await browser.newContext({ bypassCSP: true });
    try {
      const p = await signIn(ctx, 'admin@example.test');
      await open(p, '/servers', 'Servers');
      // s1 presents its pinned key: nothing to pin
      const s1 = p.locator('tr[data-item="s1"]');
      await s1.getByRole('button', { name: 'Check host key s1' }).click();
      const same = s1.getByRole('group', { name: 'Check host key s1' });
      expect(await same.innerText()).to.contain('presents the pinned key').and.contain('nothing to change');
      expect(await same.getByRole('button', { name: 'Pin the presented key' }).count()).to.equal(0);
      await same.getByRole('button', { name: 'Close' }).click();

      const row = p.locator('tr[data-item="s2"]');
      await row.getByRole('button', { name: 'Check host key s2' }).click();
      const ask = row.getByRole('group', { name: 'Check host key s2' });
      expect(await ask.innerText()).to.contain(`s2 presents ${presented} (ssh-ed25519); pinned: ${old}.`);
      // kept when the admin changes their mind
      await ask.getByRole('button', { name: 'Keep it' }).click();
      expect((await w.admin.get(`/api/servers/${w.servers.s2}`)).body.hostKeyFingerprint).to.equal(old);
      await row.getByRole('button', { name: 'Check host key s2' }).click();
      await ask.getByRole('button', { name: 'Pin the presented key' }).click();
      await row.getByRole('status').filter({ hasText: `Pinned ${presented}` }).waitFor();
      expect((await w.admin.get(`/api/servers/${w.servers.s2}`)).body.hostKeyFingerprint).to.equal(presented);
      await row.getByText(presented, { exact: true }).waitFor();
      const audit = await w.s.db('audit_logs').where({ resourceId: w.servers.s2, action: 'acceptServerHostKey' });
      expect(audit.map((a: { details: object }) => a.details)).to.deep.equal([{ name: 's2', pinnedFingerprint: presented, replacedFingerprint: old }]);
      // and s2 answers over a connection checked against it
      expect((await w.admin.post(`/api/servers/${w.servers.s2}/ssh-test`, {})).body).to.include({ ok: true, hostKeyFingerprint: presented });

      // admin only: an operator edits servers but is not offered it
      const operator = await userWithRole(w.admin, 'operator');
      const op = await signIn(ctx, operator.user.email);
      await open(op, '/servers', 'Servers');
      const opRow = op.locator('tr[data-item="s2"]');
      await opRow.getByRole('button', { name: 'Test connection s2' }).waitFor();
      expect(await opRow.getByRole('button', { name: /Check host key/ }).count()).to.equal(0);
    } finally {
      await ctx.close();
    }
  });

  it("creates the fleet's registry through the form and tests it from its row", async () => {
    const ctx = await browser.newContext({ bypassCSP: true });
    try {
      const p = await signIn(ctx, 'admin@example.test');
      await open(p, '/registries', 'Registries');
      await p.getByRole('button', { name: 'New registry' }).click();
      const f = p.locator('form[data-form="create-registries"]');
      await f.getByLabel(/^Name\b/).fill('fleet');
      await f.getByLabel(/^Type\b/).selectOption('generic');
      await f.getByLabel('Registry URL').fill(`http://${w.fleet.registry.address}`);
      await f.getByRole('button', { name: 'Create registry' }).click();
      const row = p.locator('tr[data-item="fleet"]');
      await row.getByRole('button', { name: 'Test fleet' }).click();
      const said = await row.getByRole('status').innerText();
      const stored = (await w.admin.get(`/api/environments/${w.envId}/registries`)).body.items.find((r: any) => r.name === 'fleet');
      expect(stored).to.include({ type: 'generic', registryUrl: `http://${w.fleet.registry.address}` });
      const answer = (await w.admin.post(`/api/registries/${stored.id}/test`)).body;
      expect(answer.ok, answer.message).to.equal(true);
      expect(said).to.match(/^OK: .+/);
    } finally {
      await ctx.close();
    }
  });

  it('deploys a new tag after a dry run and shows the plan finish live', async () => {
    await page.getByRole('link', { name: 'web', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Service' }).waitFor();
    await page.getByLabel('Image tag').fill('v2');
    await page.getByRole('button', { name: 'Preview plan' }).click();
    await page.getByText('Dry run: nothing was changed').waitFor();
    expect(await page.locator('.preview').innerText()).to.include('v1 → v2');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    // the plan appears while it runs and reaches succeeded through the event stream
    await page.locator('[data-plan] h3 [data-plan-status="succeeded"]').waitFor();
    expect(await page.locator('[data-plan] [data-step-status="succeeded"]').count()).to.equal(1);
    expect(await containerImage('s1', container)).to.match(/web:v2 running$/);
  });

  it('shows a container stopped by hand as drift and heals it with the button', async () => {
    await serverExec('s1', ['docker', 'stop', container]);
    await open(page, '/drift', 'Drift');
    const row = page.locator(`tr[data-deployment="${container}"][data-drifted="true"]`);
    await row.filter({ hasText: 'ContainerStopped' }).waitFor();
    // what the default policy does about it, next to it
    expect(await row.getByTestId('status-note').innerText()).to.equal('not restored: driftPolicy warn');
    await shot(page, 'drift');
    await row.getByRole('button', { name: /^Heal/ }).click();
    await page.locator('[data-plan] h3 [data-plan-status="succeeded"]').waitFor();
    await page.locator(`tr[data-deployment="${container}"][data-drifted="false"]`).waitFor();
    expect(await containerImage('s1', container)).to.match(/web:v2 running$/);
  });

  it('shows a failing tag rolled back, with its reason', async () => {
    await page.goto(`${w.svc.url}/env/${w.envId}/services/${web.service.id}`);
    await page.getByLabel('Image tag').fill('v77');
    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.locator('[data-plan] h3 [data-plan-status="rolled_back"]').waitFor();
    expect(await page.locator('[data-plan] .plan-error').innerText()).to.match(/pull of \S+:v77 failed: .*; rolled back$/);
    await page.locator('.lead', { hasText: 'Degraded' }).waitFor();
    expect(await containerImage('s1', container)).to.match(/web:v2 running$/);
  });

  it('lists the revisions with their outcome, diffs one with the one before and reverts to the first', async () => {
    await page.goto(`${w.svc.url}/env/${w.envId}/services/${web.service.id}`);
    await page.getByRole('heading', { name: 'Revisions' }).waitFor();
    // v1, v2, the failed v77: the failure is named and the last good one marked
    expect(await page.locator('tr[data-revision]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-revision')))).to.deep.equal(['3', '2', '1']);
    expect(await page.locator('tr[data-revision="3"]').innerText()).to.match(/v77[\s\S]*failed/);
    expect(await page.locator('tr[data-revision="2"]').innerText()).to.include('last good');
    expect(await page.getByTestId('revisions-line').innerText()).to.match(/r3 failed: .*v77/);
    await page.locator('tr[data-revision="2"]').getByRole('button', { name: 'Diff with r1' }).click();
    await page.locator('.diff', { hasText: 'image.tag' }).waitFor();
    // a field per row, before and after: read as text, not JSON
    expect(await page.locator('.diff tr', { hasText: 'image.tag' }).innerText()).to.match(/^image\.tag\s+v1\s+v2$/);
    await shot(page, 'service-revisions');
    await page.locator('tr[data-revision="1"]').getByRole('button', { name: 'Revert to r1' }).click();
    await page.locator('[data-plan] h3 [data-plan-status="succeeded"]').waitFor();
    expect(await containerImage('s1', container)).to.match(/web:v1 running$/);
    await page.locator('tr[data-revision="4"]', { hasText: 'revert of r1' }).waitFor();
  });

  it('previews a config file redacted, shows its diff and syncs it to the server with the button', async () => {
    // where the deployment's copy lives on the server (a deploy writes it too), read back through
    // the fleet's own access; a new value of the var is what the sync must bring
    const onServer = `/opt/stevedore/deployments/${container}/files${target}`;
    const onDisk = () => serverExec('s1', ['sh', '-c', 'cat "$1" 2>/dev/null || echo absent', 'sh', onServer]);
    const mode = `m-${Date.now().toString(36)}`;
    const [v] = (await w.admin.get(`/api/environments/${w.envId}/vars`)).body.items.filter((x: { key: string }) => x.key === 'DASH_MODE');
    expect((await w.admin.patch(`/api/vars/${v.id}`, { value: mode })).status).to.equal(200);
    const before = await onDisk();
    expect(before).to.not.include(mode);
    await open(page, '/config-files', 'Config files');
    await page.getByRole('button', { name: 'web.conf', exact: true }).click();
    expect((await page.getByLabel('Rendered preview').innerText()).trimEnd()).to.equal(`token=[REDACTED]\nmode=${mode}`);
    await page.getByRole('button', { name: 'Show diff' }).click();
    const diff = page.getByLabel('Diff for s1');
    await diff.waitFor();
    expect(await diff.innerText()).to.include(`+++ b${target}`).and.include(`+mode=${mode}`);
    expect(await onDisk(), 'the diff wrote nothing').to.equal(before);
    await page.getByRole('button', { name: 'Sync to servers' }).click();
    await page.getByRole('heading', { name: 'Sync result: succeeded' }).waitFor();
    expect(await page.locator('.target', { hasText: 's1' }).locator('.badge').innerText()).to.equal('written');
    expect(await page.content()).to.not.include(SECRET);
    expect(await onDisk()).to.equal(`token=${SECRET}\nmode=${mode}\n`);
  });

  it('draws the topology: the servers, the web service, a connection, and the Mermaid export', async () => {
    const link = await w.admin.post('/api/connections', { environmentId: w.envId, from: { kind: 'Service', id: web.service.id }, to: { kind: 'Server', id: w.servers.s2 }, label: 'metrics' });
    expect(link.status, link.text).to.equal(201);
    await open(page, '/topology', 'Topology');
    // edges are runs of horizontal and vertical lines: a flat line has no area, so attached, not visible
    await page.locator('svg.topology g[data-kind="connection"] line.edge').first().waitFor({ state: 'attached' });
    expect(await page.locator('svg.topology g[data-kind="placement"]').count()).to.be.at.least(1);
    expect(await page.getByTestId('topology-links').innerText()).to.equal('web → s2 connection: metrics');
    const nodes = await page.locator('svg.topology g.node').allTextContents();
    for (const n of ['s1', 's2', 's3', 'web']) expect(nodes.some((t) => t.startsWith(n)), n).to.equal(true);
    expect(await page.getByLabel('Mermaid flowchart').innerText()).to.match(/^flowchart/);
  });

  it('shows a viewer the same pages without deploy, heal, sync, cancel or rollback buttons', async () => {
    await userWithRole(w.admin, 'viewer', 'viewer@example.test');
    const viewer = await browser.newContext({ bypassCSP: true });
    const p = await signIn(viewer, 'viewer@example.test');
    const forbidden = /deploy|heal|sync|roll back|revert|cancel|preview/i;
    expect(await p.getByRole('button', { name: forbidden }).count()).to.equal(0);
    await p.getByRole('link', { name: 'web', exact: true }).click();
    await p.getByRole('heading', { name: 'Deployments' }).waitFor();
    await p.getByRole('heading', { name: 'History' }).waitFor();
    expect(await p.getByRole('button', { name: forbidden }).count()).to.equal(0);
    expect(await p.getByLabel('Image tag').count()).to.equal(0);
    await open(p, '/drift', 'Drift');
    await p.locator(`tr[data-deployment="${container}"]`).waitFor();
    expect(await p.getByRole('button', { name: forbidden }).count()).to.equal(0);
    expect(await p.getByRole('link', { name: 'Settings' }).count()).to.equal(0);
    await open(p, '/config-files', 'Config files');
    await p.getByRole('button', { name: 'web.conf', exact: true }).click();
    await p.getByLabel('Rendered preview').waitFor();
    expect(await p.getByRole('button', { name: forbidden }).count()).to.equal(0);
    await viewer.close();
  });

  it('shows an operator who is a viewer member of this environment no deploy controls, and them again once the membership goes', async () => {
    const { user } = await userWithRole(w.admin, 'operator', 'member@example.test');
    expect((await w.admin.put(`/api/environments/${w.envId}/members/${user.id}`, { role: 'viewer' })).status).to.equal(200);
    const ctx = await browser.newContext({ bypassCSP: true });
    try {
      const p = await signIn(ctx, 'member@example.test');
      await open(p, `/services/${web.service.id}`, 'Service');
      await p.getByRole('heading', { name: 'History' }).waitFor();
      expect(await p.getByLabel('Image tag').count()).to.equal(0);
      expect(await p.getByRole('button', { name: /deploy|revert/i }).count()).to.equal(0);
      expect((await w.admin.delete(`/api/environments/${w.envId}/members/${user.id}`)).status).to.equal(204);
      await p.reload();
      await p.getByLabel('Image tag').waitFor();
      expect(await p.getByRole('button', { name: /deploy/i }).count()).to.be.greaterThan(0);
    } finally {
      await ctx.close();
    }
  });

  // one test per page: axe takes seconds per page on a busy machine
  const axePages: Array<[string, () => Promise<string>, string]> = [
    ['Overview', async () => '', 'tr[data-server]'],
    ['Service', async () => `/services/${web.service.id}`, 'tr[data-deployment]'],
    ['Drift', async () => '/drift', 'tr[data-deployment]'],
    ['Config files', async () => '/config-files', 'main p'],
    ['Databases', async () => '/databases', 'main p'],
    ['Topology', async () => '/topology', 'svg.topology'],
    ['Audit log', async () => '/audit', 'tbody tr'],
    ['Settings', async () => '/settings', 'section.settings form'],
    ['Deployment plan', async () => `/plans/${(await w.s.db('deployment_plans').where({ environmentId: w.envId }).orderBy('createdAt', 'desc').first()).id}`, '[data-plan]'],
  ];
  for (const [heading, path, ready] of axePages) {
    it(`has no serious or critical axe-core violation on the ${heading} page`, async () => {
      await open(page, await path(), heading);
      await page.locator(ready).first().waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });
  }

  it('has no serious or critical axe-core violation on the sign-in page', async () => {
    const p = await context.newPage();
    await p.goto(`${w.svc.url}/login`);
    await p.getByRole('heading', { name: 'Sign in to Stevedore' }).waitFor();
    expect(await seriousViolations(p)).to.deep.equal([]);
  });
});
