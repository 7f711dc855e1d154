// bench/dashboard.ts - the dashboard's first page: its compressed size, and the time to first
// render of an environment's overview with SERVERS servers (default 50) and SERVICES services
// (default 500, one deployment each), in Debian's headless Chromium. Goal: under 1 s.
//   DATABASE_URL=postgres://... npx tsx bench/dashboard.ts [rounds=5]
// "First render" is from the start of the navigation to the moment every service row is in the
// page (the whole overview, not a spinner), read from the page's own performance clock.
import { buildDashboard } from '../dashboard/build.js';
import { bootstrapAdmin } from '../test/support/fixtures.js';
import { launchBrowser } from '../test/support/browser.js';
import { startTestService } from '../test/support/test-service.js';

const rounds = Number(process.argv[2] ?? 5);
const SERVERS = Number(process.env.SERVERS ?? 50);
const SERVICES = Number(process.env.SERVICES ?? 500);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const assets = await buildDashboard();
const first = ['/index.html', '/assets/app.js', '/assets/app.css'];
const gz = first.map((p) => assets.get(p)!.gzip.length);
console.log(`first page: ${first.map((p, i) => `${p} ${(gz[i] / 1024).toFixed(1)} KB`).join(', ')}; JS+CSS gzipped ${((gz[1] + gz[2]) / 1024).toFixed(1)} KB (budget 200 KB)`);

// no background checks of servers that do not exist
const svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '86400', SCHEDULER_DRIFT_CHECK_SEC: '86400', SCHEDULER_RESYNC_SEC: '86400', LOG_LEVEL: 'warn' });
const s = svc.services;
try {
  const admin = await bootstrapAdmin(svc.http);
  const env = (await admin.post('/api/environments', { name: 'bench' })).body;
  const servers = [];
  for (let i = 0; i < SERVERS; i++) {
    servers.push(await s.servers.insert({ environmentId: env.id, name: `srv-${i}`, hostname: `198.51.100.${i + 1}`, sshPort: 22, sshUser: 'root', dockerMode: 'ssh' } as never));
  }
  const image = await s.containerImages.insert({ environmentId: env.id, imageName: 'registry.example/acme/web' } as never);
  for (let i = 0; i < SERVICES; i++) {
    const service = await s.services.create(env.id, { name: `svc-${i}`, containerImageId: image.id, imageTag: 'v1', env: {}, ports: [], volumes: [], healthCheck: null as never });
    await s.deployments.create(service.id, env.id, { serverId: servers[i % SERVERS].id, containerName: `svc-${i}` });
  }
  const token = admin.token!;
  const browser = await launchBrowser();
  const times: number[] = [];
  const apiDone: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const page = await (await browser.newContext()).newPage();
    // signed in as the dashboard keeps it (these callbacks run in the page: globalThis is its window)
    await page.addInitScript((t) => (globalThis as any).sessionStorage.setItem('stevedore.token', t), token);
    // long tasks (script, style, layout over 50 ms) show where the main thread goes after the data arrive
    if (process.env.VERBOSE) await page.addInitScript(() => { (globalThis as any).longTasks = []; new PerformanceObserver((l) => (globalThis as any).longTasks.push(...l.getEntries())).observe({ type: 'longtask' as never, buffered: true }); });
    await page.goto(`${svc.url}/env/${env.id}`);
    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('tr[data-service]').length === n, SERVICES, { timeout: 60_000, polling: 'raf' });
    const [rendered, dataAt] = await page.evaluate(() => [performance.now(),
      Math.max(...performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/') && !e.name.includes('/api/events')).map((e) => (e as unknown as { responseEnd: number }).responseEnd))]);
    times.push(rendered);
    if (process.env.VERBOSE) {
      console.log(await page.evaluate(() => performance.getEntriesByType('resource')
        .map((e) => `${e.name.replace(/^https?:\/\/[^/]+/, '')} ${e.startTime.toFixed(0)}..${(e as unknown as { responseEnd: number }).responseEnd.toFixed(0)}`).join('\n')));
      console.log(await page.evaluate(() => `long tasks: ${(globalThis as any).longTasks.map((e: { startTime: number; duration: number }) => `${e.startTime.toFixed(0)}+${e.duration.toFixed(0)}`).join(', ')}; rendered at ${performance.now().toFixed(0)}`));
    }
    apiDone.push(dataAt);
    await page.context().close();
  }
  await browser.close();
  console.log(`overview of ${SERVERS} servers and ${SERVICES} services: first render ${median(times).toFixed(0)} ms median (${times.map((t) => t.toFixed(0)).join(', ')}; goal < 1000 ms); its API answers all in at ${median(apiDone).toFixed(0)} ms`);
} finally {
  await svc.stop();
}
