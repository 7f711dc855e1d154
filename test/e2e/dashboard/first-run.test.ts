// A fresh install in a real browser: no user yet, the sign-in page offers to create the first
// admin, the account is stored as admin and signed in; the server's log said where to go first.
// (Lives with the end-to-end tests for Debian's Chromium, installed with the fleet; no server of
// the fleet is used.)
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { startTestService, type TestService } from '../../support/test-service.js';

describe('first run of the dashboard (e2e)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let browser: Browser;

  before(async () => {
    svc = await startTestService();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('logs the first step at start, creates the first admin and the first environment with a generated key in the page', async () => {
    expect(svc.logs.some((l) => l.includes(`no user yet: open ${svc.url}/ to create the first admin`))).to.equal(true);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${svc.url}/`);
    await page.getByRole('heading', { level: 1, name: 'Create the first admin' }).waitFor();
    await page.getByLabel('Email').fill('first@example.test');
    await page.getByLabel('Name').fill('First Admin');
    await page.getByLabel('Password').fill('a-long-first-password');
    await page.getByRole('button', { name: 'Create admin and sign in' }).click();
    // signed in: the environments page (none yet)
    await page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    await page.getByText('No environment yet').waitFor();
    const user = await svc.services.db('users').where({ email: 'first@example.test' }).first();
    expect(user).to.include({ role: 'admin', name: 'First Admin' });

    // the first environment, with a key generated on the controller: only its public half is shown
    await page.getByRole('heading', { name: 'Create an environment' }).waitFor();
    await page.getByLabel('Name').fill('production');
    await page.getByLabel('Generate one').check();
    await page.getByRole('button', { name: 'Create environment' }).click();
    const shown = (await page.getByTestId('public-key').innerText()).trim();
    expect(shown).to.match(/^ssh-ed25519 AAAA\S+$/);
    const env = await svc.services.db('environments').where({ name: 'production' }).first();
    expect(env.sshPublicKey).to.equal(shown);
    expect(svc.services.secretBox.open(env.sshPrivateKeySealed)).to.include('OPENSSH PRIVATE KEY');
    expect(await page.content()).to.not.include('PRIVATE KEY');
    await page.getByRole('link', { name: 'Open production' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();

    const other = await (await browser.newContext()).newPage();
    await other.goto(`${svc.url}/login`);
    await other.getByRole('heading', { level: 1, name: 'Sign in to Stevedore' }).waitFor();
    expect(await other.getByLabel('Name').count()).to.equal(0);
  });
});
