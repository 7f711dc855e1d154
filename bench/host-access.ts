// bench/host-access.ts - the cost of reaching a server by id through services.hosts (row + key
// lookup per call, then the pooled connection) and of the live health check API.
//   DATABASE_URL=postgres://… FLEET_ID=1 npx tsx bench/host-access.ts [seconds=5]
// Prints the median `exec true` latency through services.hosts next to the raw pooled driver, and
// health checks per second through POST /api/servers/{id}/health (all fleet servers in parallel).
import { startTestService } from '../test/support/test-service.js';
import { dropTestDatabases } from '../test/support/test-database.js';
import { bootstrapAdmin, createEnvironment } from '../test/support/fixtures.js';
import { loadFleet, privateKeyOf } from '../test/fleet/fleet.js';

const seconds = Number(process.argv[2] ?? 5);
const fleet = loadFleet();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const svc = await startTestService({ SCHEDULER_HEALTH_CHECK_SEC: '86400', LOG_LEVEL: 'warn' });
try {
  const admin = await bootstrapAdmin(svc.http);
  const envId = (await createEnvironment(admin)).id;
  await admin.put(`/api/environments/${envId}/ssh-key`, { privateKey: privateKeyOf(fleet.servers[0]!) });
  const ids: string[] = [];
  for (const f of fleet.servers) {
    ids.push((await admin.post(`/api/environments/${envId}/servers`, { name: f.name, hostname: f.host, sshPort: f.port, sshUser: f.user })).body.id);
  }
  const hosts = svc.services.hosts;
  const timeExec = async (fn: () => Promise<unknown>, n: number) => {
    await fn();
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      out.push(performance.now() - t);
    }
    return out;
  };
  const viaHosts = await timeExec(() => hosts.exec(ids[0]!, ['true']), 200);
  const viaDriver = await timeExec(() => hosts.driver.exec(ids[0]!, ['true']), 200);
  console.log(`exec true via services.hosts (row+key lookup + pooled ssh): median ${median(viaHosts).toFixed(2)} ms (n=200)`);
  console.log(`exec true via the pooled driver alone:                      median ${median(viaDriver).toFixed(2)} ms (n=200)`);

  let checks = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(ids.map(async (id) => {
    while (performance.now() < end) {
      const r = await admin.post(`/api/servers/${id}/health`, {});
      if (r.body.health.status !== 'healthy') throw new Error(`unhealthy: ${r.body.health.message}`);
      checks++;
    }
  }));
  console.log(`POST /api/servers/{id}/health on ${ids.length} servers for ${seconds}s: ${checks} checks, ${(checks / seconds).toFixed(0)} checks/s`);
} finally {
  await svc.stop();
  await dropTestDatabases();
}
