// bench/agent-ingest.ts - the controller's cost of agent ingest: SERVERS (1000) agents posting one
// sample each (5 containers) to POST /api/agent/ingest over real HTTP, i.e. one minute of agent
// traffic at one post per server per minute. Measured per cycle: CPU of this process (the
// controller AND the HTTP client sending the posts: an upper bound for the controller) and of
// the PostgreSQL backends of the service's pool; as % of one core at a 60 s cycle (goal: under 20 %).
//   DATABASE_URL=postgres://postgres@127.0.0.1:25446/postgres npx tsx bench/agent-ingest.ts
import { readFileSync } from 'node:fs';
import { agentTokenHash, agentTokenPrefix, generateAgentToken } from '../controller/crypto/agent-token.js';
import { startTestService } from '../test/support/test-service.js';
import { dropTestDatabases } from '../test/support/test-database.js';
import { mapLimit } from '../controller/servers/health.js';

const SERVERS = Number(process.env.SERVERS ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const CYCLES = Number(process.env.CYCLES ?? 3);
const ticks = (pid: number) => {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in ms (USER_HZ 100)
  } catch { return 0; }
};
const nodeCpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const body = JSON.stringify({
  cpuPercent: 12.5, memoryUsedBytes: 2e9, memoryTotalBytes: 8e9, swapUsedBytes: 0, swapTotalBytes: 2e9, diskUsedBytes: 4e10,
  diskTotalBytes: 1e11, load1: 0.5, load5: 0.4, load15: 0.3, openFds: 2000, tcpConnections: 40, processes: 180,
  containers: Array.from({ length: 5 }, (_, c) => ({ name: `svc-${c}`, cpuPercent: 1.5, memoryUsedBytes: 1e8, memoryLimitBytes: 1e9 })),
});

async function main() {
  const svc = await startTestService({ LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', SCHEDULER_HEALTH_CHECK_SEC: '86400' });
  const s = svc.services;
  try {
    const [env] = await s.db('environments').insert({ name: 'bench-agents' }).returning('*');
    const rows = await s.db('servers').insert(Array.from({ length: SERVERS }, (_, i) => ({
      environmentId: env.id, name: `a${i}`, hostname: `10.0.${i >> 8}.${i & 255}`, sshUser: 'root', dockerMode: 'ssh', metricsMode: 'agent',
    }))).returning('id');
    const tokens: string[] = [];
    for (const r of rows as Array<{ id: string }>) {
      const token = generateAgentToken();
      await s.serverAgents.setToken(r.id, { hash: agentTokenHash(token), prefix: agentTokenPrefix(token), controllerUrl: svc.url });
      tokens.push(token);
    }
    const post = async (token: string) => {
      const res = await fetch(`${svc.url}/api/agent/ingest`, {
        method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-agent-version': '1.0.0' },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    };
    const cycle = () => mapLimit(tokens, CONCURRENCY, post);
    await cycle(); // warm-up: partitions, connections, JIT
    const backends = async () => (await s.db.raw('select pid from pg_stat_activity where datname = current_database()')).rows
      .map((r: { pid: number }) => r.pid) as number[];
    const runs: Array<{ node: number; pg: number; wall: number }> = [];
    for (let i = 0; i < CYCLES; i++) {
      const pids = await backends();
      const p0 = pids.reduce((a, p) => a + ticks(p), 0), n0 = nodeCpuMs(), w0 = performance.now();
      await cycle();
      const wall = performance.now() - w0, node = nodeCpuMs() - n0;
      runs.push({ node, pg: pids.reduce((a, p) => a + ticks(p), 0) - p0, wall });
    }
    const node = median(runs.map((r) => r.node)), pg = median(runs.map((r) => r.pg)), wall = median(runs.map((r) => r.wall));
    const stored = Number((await s.db('server_samples').count({ n: '*' }))[0]!.n);
    console.log(`agent ingest: ${SERVERS} posts (5 containers each, ${CONCURRENCY} at a time), median of ${CYCLES} cycles: `
      + `wall ${wall.toFixed(0)} ms, CPU node ${node.toFixed(0)} ms (controller + client) + PostgreSQL ${pg.toFixed(0)} ms `
      + `= ${(((node + pg) / 60_000) * 100).toFixed(1)} % of one core at a 60 s cycle (goal < 20 %); ${stored} samples stored`);
  } finally {
    await svc.stop();
    await dropTestDatabases().catch(() => undefined);
  }
}

await main();
