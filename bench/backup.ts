// bench/backup.ts - a large PostgreSQL backup through Stevedore, on the test fleet:
//   (1) the controller's RSS (the real service as a child process, /proc/<pid>/status sampled every
//       100 ms) before, at its peak and after a backup of a BENCH_DB_MB database (default 1024);
//   (2) its throughput next to the same dump run by hand in the same run:
//       `ssh s1 docker exec c pg_dump … > file` (the floor) and `… | gzip -6 > file`
//       (what Stevedore does: it gzips at level 6 and hashes on the way), printed as ratios.
//   FLEET_ID=n (fleet up, fleet.env sourced) DATABASE_URL=postgres://… npx tsx bench/backup.ts
// The order is hand dump, Stevedore, hand dump | gzip, so the database's pages are warm for all
// three timed runs after the first. Run it on an otherwise idle machine.
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadFleet, serverExec } from '../test/fleet/fleet.js';
import { startServiceProcess } from './support/service-process.js';

const run = promisify(execFile);
const adminUrl = process.env.DATABASE_URL;
const DB_MB = Number(process.env.BENCH_DB_MB ?? 1024);
const PASSWORD = 'bench-pg-password';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function request(port: number, method: string, p: string, token?: string, body?: unknown) {
  const res = await fetch(`http://127.0.0.1:${port}${p}`, {
    method, headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** A shell pipeline on the host, timed; its output file's size. */
async function timedShell(script: string, out: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const p = spawn('bash', ['-o', 'pipefail', '-c', script], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`hand dump exited ${code}`))));
  });
  const ms = performance.now() - started;
  const bytes = fs.statSync(out).size;
  fs.rmSync(out);
  return { ms, bytes };
}

async function main() {
  if (!adminUrl) throw new Error('set DATABASE_URL (fleet.env has it)');
  const fleet = loadFleet();
  const root = fleet.root;
  if (!/^FLEET_PG_IMAGE=/m.test(fs.readFileSync(path.join(root, 'fleet.env'), 'utf8'))) await run('bash', ['test/fleet/pg-image.sh']);
  const image = fs.readFileSync(path.join(root, 'fleet.env'), 'utf8').match(/^FLEET_PG_IMAGE=(.*)$/m)![1];
  const container = `bench-pg-${crypto.randomBytes(3).toString('hex')}`;
  const service = await startServiceProcess({ adminUrl, prefix: 'stevedore_bench_backup', env: { SCHEDULER_BACKUP_SEC: '3600' } });
  const work = fs.mkdtempSync('/tmp/stevedore-bench-backup-');
  try {
    await serverExec('s1', ['docker', 'run', '-d', '--name', container, '--env', `POSTGRES_PASSWORD=${PASSWORD}`, '--env', 'POSTGRES_DB=bench', image]);
    for (;;) {
      if ((await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.Health.Status}}', container])).trim() === 'healthy') break;
      await sleep(250);
    }
    // rows of 8 md5 hex strings (256 random-looking characters): gzip gets about 2:1, as on real data
    const rows = Math.round((DB_MB * 1048576) / 330);
    const filled = performance.now();
    const payload = Array.from({ length: 8 }, (_, i) => `md5(g::text || '${i}')`).join(' || ');
    await serverExec('s1', ['docker', 'exec', container, 'psql', '-qU', 'postgres', '-d', 'bench', '-c',
      `create table blob (id int primary key, payload text); insert into blob select g, ${payload} from generate_series(1, ${rows}) g`]);
    const dbBytes = Number((await serverExec('s1', ['docker', 'exec', container, 'psql', '-U', 'postgres', '-d', 'bench', '-tAc', 'select pg_database_size(current_database())'])).trim());
    console.log(`database: ${mib(dbBytes)} MiB (${rows} rows), filled in ${((performance.now() - filled) / 1000).toFixed(0)} s`);

    const ssh = `ssh -F ${root}/ssh_config s1 docker exec ${container} pg_dump -Fc -Z 0 -U postgres -d bench`;
    const raw = await timedShell(`${ssh} > ${work}/hand.dump`, `${work}/hand.dump`);
    console.log(`hand  pg_dump > file:        ${(raw.ms / 1000).toFixed(1)} s, ${mib(raw.bytes)} MiB written`);

    const port = service.port;
    await request(port, 'POST', '/api/auth/register', undefined, { email: 'bench@example.test', password: 'bench-password' });
    const jwt = (await request(port, 'POST', '/api/auth/login', undefined, { email: 'bench@example.test', password: 'bench-password' })).token;
    const env = await request(port, 'POST', '/api/environments', jwt, { name: 'bench' });
    await request(port, 'PUT', `/api/environments/${env.id}/ssh-key`, jwt, { privateKey: fs.readFileSync(fleet.servers[0].privateKeyPath, 'utf8') });
    const s1 = fleet.servers[0];
    const server = await request(port, 'POST', `/api/environments/${env.id}/servers`, jwt, { name: s1.name, hostname: s1.host, sshPort: s1.port, sshUser: s1.user });
    const db = await request(port, 'POST', `/api/environments/${env.id}/databases`, jwt, {
      name: 'bench', type: 'postgres', serverId: server.id, containerName: container, databaseName: 'bench', username: 'postgres', password: PASSWORD,
    });
    const pid = service.child.pid!;
    const before = rssMiB(pid);
    let peak = before;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pid)); }, 100);
    const started = performance.now();
    let backup = await request(port, 'POST', `/api/databases/${db.id}/backups`, jwt, { storage: 'local' });
    while (backup.status === 'running') {
      await sleep(100);
      backup = await request(port, 'GET', `/api/backups/${backup.id}`, jwt);
    }
    const ms = performance.now() - started;
    clearInterval(sampler);
    const after = rssMiB(pid);
    if (backup.status !== 'succeeded') throw new Error(`the backup failed: ${backup.error}`);
    console.log(`Stevedore backup (gzip -6, SHA-256, verified): ${(ms / 1000).toFixed(1)} s, ${mib(backup.sizeBytes)} MiB stored`);
    console.log(`controller RSS: ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak, ${after.toFixed(0)} MiB after (goal: flat, under 150 MB)`);

    const gz = await timedShell(`${ssh} | gzip -6 > ${work}/hand.dump.gz`, `${work}/hand.dump.gz`);
    console.log(`hand  pg_dump | gzip -6:     ${(gz.ms / 1000).toFixed(1)} s, ${mib(gz.bytes)} MiB written`);
    console.log(`throughput ratio, Stevedore / hand pg_dump > file: ${(raw.ms / ms).toFixed(2)}x (goal 0.9x)`);
    console.log(`throughput ratio, Stevedore / hand pg_dump | gzip: ${(gz.ms / ms).toFixed(2)}x`);
    console.log(`dump throughput: Stevedore ${mib((raw.bytes / ms) * 1000)} MiB/s, hand raw ${mib((raw.bytes / raw.ms) * 1000)} MiB/s, hand gzip ${mib((raw.bytes / gz.ms) * 1000)} MiB/s (uncompressed dump bytes)`);
  } finally {
    await serverExec('s1', ['docker', 'rm', '-f', '--volumes', container]).catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
    await service.stop();
    fs.rmSync(`/tmp/${service.database}`, { recursive: true, force: true }); // its state dir, with the backup
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
