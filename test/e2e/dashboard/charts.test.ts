// The metrics charts in Debian's Chromium, drawn from samples the real service took of the fleet's
// servers over SSH: the server CPU and memory of the Metrics page and the container CPU and memory
// of a service's page hold the samples the history routes answer, say their latest value in words,
// and are painted on the canvas.
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.js';
import { until } from '../../support/until.js';
import { seriousViolations } from '../../support/axe.js';
import { signIn } from '../../support/sign-in.js';
import { addService, cleanup, startWorld, type World } from '../deploy/deploy-world.js';

const nonNull = (values: Array<number | null>) => values.filter((v): v is number => v !== null);
const percent = (v: number) => `${Math.round(v * 10) / 10} %`;

/** Pixels of the first series' colour (#0b5cad, components/chart.tsx) on the chart's canvas: the line uPlot drew. */
async function painted(page: Page, chart: string): Promise<number> {
  return page.locator(`figure[data-chart="${chart}"] canvas`).evaluate((canvas: any) => {
    const { width, height } = canvas;
    const px = canvas.getContext('2d').getImageData(0, 0, width, height).data as Uint8ClampedArray;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - 0x0b) < 40 && Math.abs(px[i + 1] - 0x5c) < 40 && Math.abs(px[i + 2] - 0xad) < 40 && px[i + 3] > 200) n++;
    return n;
  });
}

describe('dashboard charts of real samples (e2e)', function () {
  this.timeout(180_000);
  let w: World;
  let browser: Browser;
  let page: Page;
  let serviceId: string;
  let container: string;

  before(async () => {
    // samples every 2 s over SSH from s1; no health sweep in the way
    w = await startWorld({ SCHEDULER_METRICS_SEC: '2', SCHEDULER_HEALTH_CHECK_SEC: '86400' });
    expect((await w.admin.patch(`/api/servers/${w.servers.s1}`, { metricsMode: 'ssh' })).status).to.equal(200);
    const web = await addService(w, 'web', { servers: ['s1'] });
    serviceId = web.service.id;
    container = web.deployments[0].containerName;
    expect((await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, { imageTag: 'v1' })).body.status).to.equal('succeeded');
    // a few samples with the running container in them (CPU needs two readings: from the second on)
    await until('three container samples with CPU', async () => {
      const h = (await w.admin.get(`/api/services/${serviceId}/metrics/history?stepSec=1`)).body;
      return nonNull(h.containers[0].cpuPercent).length >= 3;
    }, { timeoutMs: 90_000, everyMs: 1000 });
    browser = await launchBrowser();
    page = await signIn(await (await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })).newPage(), w.svc.url);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  });
  after(async () => {
    await browser?.close();
    await cleanup(w);
  });

  it("draws the servers' CPU and memory from the samples the history answers", async () => {
    await page.goto(`${w.svc.url}/env/${w.envId}/metrics`);
    const cpu = page.locator(`figure[data-chart="cpu-${w.servers.s1}"]`);
    await cpu.locator('canvas').waitFor();
    const shown = Number(await cpu.getAttribute('data-points'));
    // the page asks for an hour in buckets of 5 s (components/metrics.tsx): the same buckets here
    const h = (await w.admin.get(`/api/environments/${w.envId}/metrics/history?serverId=${w.servers.s1}&stepSec=5`)).body;
    const samples = nonNull(h.series.cpuPercent);
    expect(shown).to.be.at.least(2);
    // the page asked a moment before this read: it holds at most the samples since then more
    expect(shown).to.be.within(samples.length - 5, samples.length);
    const caption = await cpu.locator('figcaption').innerText();
    expect(caption).to.match(/CPU: latest [\d.]+ %, highest [\d.]+ % \(\d+ samples\)/);
    expect(caption).to.include(`highest ${percent(Math.max(...samples.slice(0, shown)))}`);
    expect(await painted(page, `cpu-${w.servers.s1}`)).to.be.greaterThan(50);
    const memory = page.locator(`figure[data-chart="mem-${w.servers.s1}"]`);
    expect(Number(await memory.getAttribute('data-points'))).to.be.at.least(4); // used and total
    expect(await painted(page, `mem-${w.servers.s1}`)).to.be.greaterThan(50);
    // the other servers are not sampled (metrics mode disabled): said so, and their charts are empty
    expect(await page.getByText(/Metrics are not collected from s2, s3/).count()).to.equal(1);
    expect(await page.locator(`figure[data-chart="cpu-${w.servers.s2}"]`).getAttribute('data-points')).to.equal('0');
    expect(await seriousViolations(page)).to.deep.equal([]);
  });

  it("draws a service's container CPU and memory, and follows a change of time range", async () => {
    await page.goto(`${w.svc.url}/env/${w.envId}/services/${serviceId}`);
    const cpu = page.locator('figure[data-chart="container-cpu"]');
    await cpu.locator('canvas').waitFor();
    expect(Number(await cpu.getAttribute('data-points'))).to.be.at.least(1);
    expect(await cpu.locator('figcaption').innerText()).to.include(`${container} on s1: latest`);
    const memory = page.locator('figure[data-chart="container-memory"]');
    const h = (await w.admin.get(`/api/services/${serviceId}/metrics/history?stepSec=5`)).body;
    const used = nonNull(h.containers[0].memoryUsedBytes);
    expect(used.length).to.be.at.least(1);
    expect(used.every((v) => v > 0)).to.equal(true);
    expect(Number(await memory.getAttribute('data-points'))).to.be.at.least(1);
    expect(await painted(page, 'container-memory')).to.be.greaterThan(20);
    // a shorter range asks again and draws again
    await page.getByLabel('Time range').selectOption({ label: '15 minutes' });
    await until('the 15-minute range drawn', async () => Number(await cpu.getAttribute('data-points')) >= 1);
    expect(await painted(page, 'container-memory')).to.be.greaterThan(20);
  });
});
