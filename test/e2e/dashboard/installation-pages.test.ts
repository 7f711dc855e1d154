// The installation's own pages in Debian's Chromium against the real service and PostgreSQL: a
// lowered admin (a global admin made a viewer of one environment) is not an unrestricted admin,
// so the dashboard neither links nor opens what the API would refuse them (system settings,
// users, chat channels, the SMTP relay, a new environment) and says which role a page needs,
// while their own API tokens stay in reach; an unrestricted admin still has all of it.
// (No server of the fleet is used: SKIP_FLEET=1 runs it.)
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { bootstrapAdmin, createEnvironment, login, userWithRole } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { signIn as signInPage } from '../../support/sign-in.js';

describe('installation-only pages in a real browser (e2e)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let admin: HttpClient;
  let browser: Browser;
  let staging: { id: string; name: string };

  const signIn = async (email: string): Promise<Page> =>
    signInPage(await (await browser.newContext({ bypassCSP: true })).newPage(), svc.url, email);
  const open = async (page: Page, path: string, heading: string) => {
    await page.goto(`${svc.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  };
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Environment pages' });

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    const adminId = (await admin.get('/api/auth/me')).body.id;
    staging = await createEnvironment(admin, 'staging');
    const production = await createEnvironment(admin, 'production');
    const lee = (await userWithRole(admin, 'admin', 'lee@example.test')).user;
    expect((await admin.put(`/api/environments/${production.id}/members/${lee.id}`, { role: 'viewer' })).status).to.equal(200);
    expect((await admin.put(`/api/environments/${staging.id}/members/${lee.id}`, { role: 'admin' })).status).to.equal(200);
    expect((await (await login(svc.http, 'lee@example.test')).get('/api/auth/me')).body.unrestricted).to.equal(false);
    const own = await admin.post('/api/admin/tokens', { name: 'lee-ci', ownerUserId: lee.id, environmentIds: [staging.id] });
    expect(own.status, own.text).to.equal(201);
    const other = await admin.post('/api/admin/tokens', { name: 'admin-ci', ownerUserId: adminId });
    expect(other.status, other.text).to.equal(201);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('a lowered admin gets no link to the installation\'s pages, is told what they need, and keeps their own tokens', async () => {
    const page = await signIn('lee@example.test');
    await open(page, `/env/${staging.id}`, 'Overview');
    // admin of staging: the environment's own admin pages stay; the installation's do not
    await nav(page).getByRole('link', { name: 'Settings', exact: true }).waitFor();
    await nav(page).getByRole('link', { name: 'Admin', exact: true }).waitFor();
    expect(await nav(page).getByRole('link', { name: 'System settings' }).count()).to.equal(0);
    expect(await nav(page).getByRole('link', { name: 'Users' }).count()).to.equal(0);

    for (const [path, title] of [['system', 'System settings'], ['users', 'Users']]) {
      await open(page, `/env/${staging.id}/${path}`, title);
      await page.getByText('This page needs an unrestricted admin').waitFor();
    }

    // the Admin page: their own API tokens only, and no section whose routes would answer 403
    await open(page, `/env/${staging.id}/admin`, 'Admin');
    await page.getByRole('heading', { level: 2, name: 'API tokens', exact: true }).waitFor();
    await page.locator('[data-kind="tokens"] tr[data-item="lee-ci"]').waitFor();
    for (const section of ['Users', 'Chat channels', 'Outgoing webhooks', 'SMTP relay']) {
      expect(await page.getByRole('heading', { level: 2, name: section, exact: true }).count(), section).to.equal(0);
    }
    expect(await page.locator('tr[data-item="admin-ci"]').count()).to.equal(0);
    expect(await page.locator('.error, [role="alert"]').count()).to.equal(0);
    await open(page, `/env/${staging.id}/tokens`, 'API tokens');
    await page.locator('tr[data-item="lee-ci"]').waitFor();
    await page.getByRole('button', { name: 'New API token' }).waitFor();

    // a new environment needs an unrestricted admin: no create control
    await open(page, '/environments', 'Environments');
    await page.getByRole('link', { name: 'staging' }).waitFor();
    expect(await page.getByRole('button', { name: 'New environment' }).count()).to.equal(0);
  });

  it('an unrestricted admin still sees and opens all of it', async () => {
    const page = await signIn('admin@example.test');
    await open(page, `/env/${staging.id}`, 'Overview');
    await nav(page).getByRole('link', { name: 'System settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'System settings', exact: true }).waitFor();
    expect(await page.getByText('This page needs').count()).to.equal(0);
    await open(page, `/env/${staging.id}/admin`, 'Admin');
    for (const section of ['Users', 'API tokens', 'Chat channels', 'Outgoing webhooks', 'SMTP relay']) {
      await page.getByRole('heading', { level: 2, name: section, exact: true }).waitFor();
    }
    await page.locator('tr[data-item="admin-ci"]').waitFor();
    await page.locator('tr[data-item="lee-ci"]').waitFor();
    await open(page, '/environments', 'Environments');
    await page.getByRole('button', { name: 'New environment' }).waitFor();
  });
});
