// The terminal on the service page, in Debian's Chromium with the dashboard's real CSP (no
// bypassCSP): an operator opens it on a deployment of the fleet, types a command and reads its
// output from xterm.js; the page raises no CSP violation (xterm's <style> elements carry the page's
// nonce, dashboard/src/style-nonce.ts), and a <style> without it stays refused. A viewer sees no
// terminal, and the WebSocket answers a viewer's upgrade with 403.
import { expect } from 'chai';
import WebSocket from 'ws';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { userWithRole } from '../../support/fixtures.js';
import { signIn as signInPage } from '../../support/sign-in.js';
import type { HttpClient } from '../../support/http-client.js';
import { addService, cleanup, startWorld, waitPlan, type World } from '../deploy/deploy-world.js';

describe('a terminal on the service page (e2e, Chromium)', function () {
  this.timeout(300_000);
  let w: World;
  let browser: Browser;
  let operator: { client: HttpClient; user: { email: string } };
  let viewer: { client: HttpClient; user: { email: string } };
  let serviceId: string;
  let deploymentId: string;
  let container: string;

  const open = async (email: string): Promise<{ page: Page; violations: string[] }> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const violations: string[] = [];
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) violations.push(m.text()); });
    await signInPage(page, w.svc.url, email);
    await page.goto(`${w.svc.url}/env/${w.envId}/services/${serviceId}`);
    await page.locator(`tr[data-deployment="${container}"]`).waitFor();
    return { page, violations };
  };

  before(async () => {
    w = await startWorld();
    operator = await userWithRole(w.admin, 'operator');
    viewer = await userWithRole(w.admin, 'viewer');
    const { service, deployments } = await addService(w, 'term', { servers: ['s1'] });
    serviceId = service.id;
    deploymentId = deployments[0]!.id;
    container = deployments[0]!.containerName;
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy`, {});
    expect(plan.status, plan.text).to.equal(202);
    expect((await waitPlan(w, plan.body.id)).status).to.equal('succeeded');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await cleanup(w);
  });

  it('an operator types a command in the terminal and reads its output, with no CSP violation', async () => {
    const { page, violations } = await open(operator.user.email);
    // the page's own CSP: a nonce for <style>, new on every load
    const csp = (await page.request.get(`${w.svc.url}/env/${w.envId}`)).headers()['content-security-policy'];
    expect(csp).to.match(/style-src 'self' 'nonce-[A-Za-z0-9+/=]{24}'/);
    expect(csp).to.not.include('unsafe-inline');
    await page.getByRole('button', { name: `Terminal in ${container}` }).click();
    await page.getByRole('status').filter({ hasText: 'connected' }).waitFor();
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo term-$((6*7))');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="terminal"] .xterm-rows').filter({ hasText: 'term-42' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="terminal"] .xterm-rows').innerText()).to.include('echo term-$((6*7))');
    // xterm's own rules applied: its <style> elements carry the nonce; one made without it is refused
    const styles = await page.evaluate(() => [...(globalThis as any).document.querySelectorAll('style')].map((s: any) => ({ nonce: !!s.nonce, sheet: !!s.sheet })));
    expect(styles.length).to.be.greaterThan(0);
    expect(styles.every((s) => s.nonce && s.sheet), JSON.stringify(styles)).to.equal(true);
    expect(violations, violations.join('\n')).to.deep.equal([]);
    await page.evaluate(() => {
      const d = (globalThis as any).document;
      const holder = d.createElement('div');
      holder.innerHTML = '<style>body { display: none }</style>';
      d.body.appendChild(holder);
    });
    await page.waitForFunction(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).display !== 'none');
    expect(await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).display)).to.not.equal('none');
    await page.keyboard.type('exit');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'ended (exit, exit code 0)' }).waitFor();
  });

  it('a viewer sees no terminal, and the WebSocket answers its upgrade with 403', async () => {
    const { page } = await open(viewer.user.email);
    expect(await page.getByRole('button', { name: /^Terminal/ }).count()).to.equal(0);
    const url = new URL(`/api/services/${serviceId}/deployments/${deploymentId}/exec/ws`, w.svc.url);
    url.protocol = 'ws:';
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, ['stevedore.exec', `bearer.${viewer.client.token}`]);
      ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); ws.terminate(); });
      ws.once('open', () => reject(new Error('a viewer opened a session')));
      ws.once('error', () => undefined);
    });
    expect(status).to.equal(403);
  });
});
