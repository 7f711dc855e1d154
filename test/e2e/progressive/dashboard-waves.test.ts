// The dashboard shows placement by label and a canary's waves live, and an operator promotes a
// paused canary with its button (Debian's Chromium against the real service and the fleet).
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { signIn } from '../../support/sign-in.js';
import { serverExec } from '../../fleet/fleet.js';
import { cleanup, startWorld, type World } from '../deploy/deploy-world.js';

describe('dashboard: labels, waves and promote (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let browser: Browser;
  let page: Page;
  let name: string;
  let serviceId: string;

  before(async () => {
    w = await startWorld();
    name = `pd-${w.tag}-dash`;
    for (const s of ['s1', 's2', 's3']) expect((await w.admin.patch(`/api/servers/${w.servers[s]}`, { labels: { role: 'web', zone: s } })).status).to.equal(200);
    const created = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name, containerImageId: w.imageId, imageTag: 'v1', serverSelector: { matchLabels: { role: 'web' } },
    });
    serviceId = created.body.id;
    expect((await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, { strategy: 'parallel' })).body.status).to.equal('succeeded');
    expect((await w.admin.patch(`/api/services/${serviceId}`, { rollout: { strategy: 'canary', steps: [{ servers: 1 }, { pause: true }] } })).status).to.equal(200);
    browser = await launchBrowser();
    page = await signIn(await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage(), w.svc.url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await cleanup(w);
  });

  it('the overview shows each server\'s labels and the selector a service is placed by', async () => {
    await page.goto(`${w.svc.url}/env/${w.envId}`);
    await page.locator('tr[data-server="s2"] [data-labels]').waitFor();
    expect(await page.locator('tr[data-server="s2"] [data-labels]').innerText()).to.include('role=web').and.include('zone=s2');
    expect(await page.locator(`tr[data-service="${name}"] [data-selector]`).innerText()).to.include('role=web');
  });

  it('a plan page shows the canary paused until promoted, and its Promote button rolls out the rest', async () => {
    const res = await w.admin.post(`/api/services/${serviceId}/deploy`, { imageTag: 'v2' });
    expect(res.status, res.text).to.equal(202);
    await page.goto(`${w.svc.url}/env/${w.envId}/plans/${res.body.id}`);
    await page.locator('[data-wave-phase="paused"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('[data-current-wave]').innerText()).to.match(/Wave 1 of 2: paused until promoted/);
    expect(await page.locator('li[data-wave="0"]').getAttribute('data-wave-status')).to.equal('paused');
    expect(await page.locator('li[data-wave="1"]').getAttribute('data-wave-status')).to.equal('pending');
    const image = async (s: string) => (await serverExec(s, ['docker', 'inspect', '--format', '{{.Config.Image}}', name])).trim();
    expect(await image('s2')).to.match(/web:v1$/);
    await page.getByRole('button', { name: 'Promote' }).click();
    await page.locator('[data-plan] h3 [data-plan-status="succeeded"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('li[data-wave="1"]').getAttribute('data-wave-status')).to.equal('succeeded');
    for (const s of ['s1', 's2', 's3']) expect(await image(s), s).to.match(/web:v2$/);
  });
});
