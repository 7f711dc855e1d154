// The Jobs page in Debian's Chromium against the real service and PostgreSQL (no fleet server:
// SKIP_FLEET=1 runs it): a job created through the form drawn from createJob's schema is stored;
// its runs are listed with status, reason, exit code, duration and output; Run now answers the
// API's refusal in the page (the service is deployed nowhere); a viewer sees the runs and no control.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../../support/fixtures.js';
import type { HttpClient } from '../../support/http-client.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { signIn as signInPage } from '../../support/sign-in.js';
import { createService } from '../../support/catalog-fixtures.js';

describe('the Jobs page in a real browser (e2e)', function () {
  this.timeout(180_000);
  let svc: TestService;
  let admin: HttpClient;
  let browser: Browser;
  let envId: string;
  let serviceId: string;
  let viewerEmail: string;

  const signIn = async (email = 'admin@example.test'): Promise<Page> =>
    signInPage(await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage(), svc.url, email);

  before(async () => {
    svc = await startTestService({ SCHEDULER_JOBS_SEC: '3600' });
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin, 'batch')).id;
    serviceId = (await createService(admin, envId, { name: 'reports' })).id;
    viewerEmail = (await userWithRole(admin, 'viewer')).user.email;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('creates a job through the form, lists its runs with their reasons, and shows Run now\'s refusal', async () => {
    const page = await signIn();
    await page.goto(`${svc.url}/env/${envId}/jobs`);
    await page.getByRole('heading', { level: 1, name: 'Jobs', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New job' }).click();
    const f = page.locator('form[data-form="create-jobs"]');
    await f.getByLabel(/^Name\b/).fill('nightly');
    await f.getByLabel(/^Service\b/).selectOption(serviceId);
    await f.getByRole('button', { name: 'Add to Command' }).click();
    await f.getByLabel('Command 1').fill('sh');
    await f.getByRole('button', { name: 'Add to Command' }).click();
    await f.getByLabel('Command 2').fill('-c');
    await f.getByRole('button', { name: 'Add to Command' }).click();
    await f.getByLabel('Command 3').fill('echo report');
    await f.getByLabel(/^Schedule\b/).fill('0 3 * * *');
    await f.getByLabel(/^Time zone\b/).fill('Europe/Paris');
    await f.getByRole('button', { name: 'Create job' }).click();
    await page.locator('tr[data-item="nightly"]').waitFor();
    const [job] = (await admin.get(`/api/environments/${envId}/jobs`)).body.items;
    expect(job).to.deep.include({ name: 'nightly', serviceId, command: ['sh', '-c', 'echo report'], schedule: '0 3 * * *', timeZone: 'Europe/Paris', concurrencyPolicy: 'forbid' });
    await page.getByText('No run of nightly yet').waitFor();

    // two recorded occurrences, as the scheduler writes them
    const db = svc.services.db;
    await db('job_runs').insert([
      { jobId: job.id, environmentId: envId, trigger: 'schedule', scheduledAt: new Date('2026-01-01T02:00:00Z'), outcome: 'missed', reason: 'not started by its deadline: 90 s late' },
      { jobId: job.id, environmentId: envId, trigger: 'schedule', scheduledAt: new Date('2026-01-02T02:00:00Z'), outcome: 'skipped', reason: 'concurrencyPolicy forbid: still running' },
    ]);
    await page.locator('tr[data-status="skipped"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('tr[data-status="missed"]').innerText()).to.include('not started by its deadline: 90 s late');
    expect(await page.locator('tr[data-status="skipped"]').innerText()).to.include('concurrencyPolicy forbid');

    await page.locator('tr[data-item="nightly"]').getByRole('button', { name: 'Run now nightly' }).click();
    await page.locator('tr[data-item="nightly"]').getByRole('alert').filter({ hasText: 'not deployed' }).waitFor();
    expect(await db('job_runs').where({ jobId: job.id })).to.have.length(2);
  });

  it('a viewer sees the jobs and their runs, and no control', async () => {
    const page = await signIn(viewerEmail);
    await page.goto(`${svc.url}/env/${envId}/jobs`);
    await page.locator('tr[data-status="missed"]').waitFor();
    expect(await page.getByRole('button', { name: /^(New job|Edit|Delete|Run now)/ }).count()).to.equal(0);
  });
});
