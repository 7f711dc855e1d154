// bench/backup.ts - a large PostgreSQL backup through Stevedore, on the test fleet:
//   (1) the controller's RSS (the real service as a child process, /proc/<pid>/status sampled every
//       100 ms): before, peak and steady (median of the second half) while it backs up a
//       BENCH_DB_MB database (default 128; BENCH_DB_MB=1024 for the issue's 1 GB), and the
//       controller's CPU seconds for it;
//   (2) its throughput as a ratio to the same dump run by hand in the same run,
//       `ssh s1 docker exec c pg_dump -Fc -Z 1 … > file`, the command of the built-in postgres
//       type (the issue's floor), in BENCH_ROUNDS rounds (default 3), each backup between two
//       hand dumps; the median ratio is the figure. An uncompressed `pg_dump -Fc -Z 0 > file`
//       is printed beside it (more bytes through ssh, less CPU on the database's server).
//   FLEET_ID=n (fleet up, fleet.env sourced) DATABASE_URL=postgres://… npx tsx bench/backup.ts
//   (BENCH_SERVER=s2 picks the fleet server; BENCH_CONTAINER=name dumps an existing filled one)
// The load average is printed with the figures: on a shared machine they are only comparable
// within one run.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadFleet, serverExec } from '../test/fleet/fleet.js';
import { startServiceProcess } from './support/service-process.js';
import { cpuSeconds } from './support/process-stats.js';
import { benchServer, load, median, mib, request, sampleRss, sleep, timedShell } from './support/copy-bench.js';

const run = promisify(execFile);
const adminUrl = process.env.DATABASE_URL;
const DB_MB = Number(process.env.BENCH_DB_MB ?? 128);
/** The fleet server the database runs on. */
const SERVER = process.env.BENCH_SERVER ?? 's1';
/** A running container to dump instead of a new one (database `bench`, filled by an earlier run): no 1 GB fill again. */
const REUSE = process.env.BENCH_CONTAINER;
/** Rows inserted per statement while filling: a 1 GB fill is many bounded transactions. */
const FILL_BATCH = 200_000;
/** Backups timed, each between two hand dumps (BENCH_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PASSWORD = 'bench-pg-password';

async function main() {
  if (!adminUrl) throw new Error('set DATABASE_URL (fleet.env has it)');
  const fleet = loadFleet();
  const root = fleet.root;
  if (!/^FLEET_PG_IMAGE=/m.test(fs.readFileSync(path.join(root, 'fleet.env'), 'utf8'))) await run('bash', ['test/fleet/pg-image.sh']);
  const image = fs.readFileSync(path.join(root, 'fleet.env'), 'utf8').match(/^FLEET_PG_IMAGE=(.*)$/m)![1];
  const container = REUSE ?? `bench-pg-${crypto.randomBytes(3).toString('hex')}`;
  const service = await startServiceProcess({ adminUrl, prefix: 'stevedore_bench_backup', env: { SCHEDULER_BACKUP_SEC: '3600' } });
  const work = fs.mkdtempSync('/tmp/stevedore-bench-backup-');
  try {
    const filled = performance.now();
    if (!REUSE) {
      await serverExec(SERVER, ['docker', 'run', '-d', '--name', container, '--env', `POSTGRES_PASSWORD=${PASSWORD}`, '--env', 'POSTGRES_DB=bench', image]);
      for (;;) {
        if ((await serverExec(SERVER, ['docker', 'inspect', '--format', '{{.State.Health.Status}}', container])).trim() === 'healthy') break;
        await sleep(250);
      }
      // rows of 8 md5 hex strings (256 random-looking characters): gzip gets about 2:1, as on real data
      const rows = Math.round((DB_MB * 1048576) / 330);
      const payload = Array.from({ length: 8 }, (_, i) => `md5(g::text || '${i}')`).join(' || ');
      await serverExec(SERVER, ['docker', 'exec', container, 'psql', '-qU', 'postgres', '-d', 'bench', '-c', 'create table blob (id int primary key, payload text)']);
      for (let from = 1; from <= rows; from += FILL_BATCH) {
        await serverExec(SERVER, ['docker', 'exec', container, 'psql', '-qU', 'postgres', '-d', 'bench', '-c',
          `insert into blob select g, ${payload} from generate_series(${from}, ${Math.min(rows, from + FILL_BATCH - 1)}) g`]);
      }
    }
    const dbBytes = Number((await serverExec(SERVER, ['docker', 'exec', container, 'psql', '-U', 'postgres', '-d', 'bench', '-tAc', 'select pg_database_size(current_database())'])).trim());
    console.log(`database: ${mib(dbBytes)} MiB, ${REUSE ? `container ${REUSE} reused` : `filled in ${((performance.now() - filled) / 1000).toFixed(0)} s`}`);

    const dump = (z: number) => `ssh -F ${root}/ssh_config ${SERVER} docker exec ${container} pg_dump -Fc -Z ${z} -U postgres -d bench > ${work}/hand.dump`;
    const port = service.port;
    const { jwt, env, server } = await benchServer(port, fleet.servers.find((x) => x.name === SERVER)!);
    const db = await request(port, 'POST', `/api/environments/${env.id}/databases`, jwt, {
      name: 'bench', type: 'postgres', serverId: server.id, containerName: container, databaseName: 'bench', username: 'postgres', password: PASSWORD,
    });
    const pid = service.child.pid!;
    const rss = await sampleRss(pid);
    // Rounds of (hand dump, Stevedore backup, hand dump): on a shared machine one pair can differ
    // by 2x from the next, so each backup is compared with the hand dumps on either side of it and
    // the median of the rounds' ratios is the figure.
    const ratios: number[] = [];
    let cpu = 0;
    let storedBytes = 0;
    let handBytes = 0;
    let hand = await timedShell(dump(1), `${work}/hand.dump`);
    for (let round = 1; round <= ROUNDS; round++) {
      const cpuBefore = cpuSeconds(pid);
      const started = performance.now();
      let backup = await request(port, 'POST', `/api/databases/${db.id}/backups`, jwt, { storage: 'local' });
      while (backup.status === 'running') {
        await sleep(100);
        backup = await request(port, 'GET', `/api/backups/${backup.id}`, jwt);
      }
      const ms = performance.now() - started;
      cpu += cpuSeconds(pid) - cpuBefore;
      if (backup.status !== 'succeeded') throw new Error(`the backup failed: ${backup.error}`);
      storedBytes = backup.sizeBytes;
      const next = await timedShell(dump(1), `${work}/hand.dump`);
      handBytes = next.bytes;
      const floor = (hand.ms + next.ms) / 2;
      ratios.push(floor / ms);
      console.log(`round ${round}: hand pg_dump -Fc -Z 1 > file ${(hand.ms / 1000).toFixed(1)} s, Stevedore backup (SHA-256, fsynced) ${(ms / 1000).toFixed(1)} s, hand ${(next.ms / 1000).toFixed(1)} s: ${(floor / ms).toFixed(2)}x; load ${load()}`);
      hand = next;
    }
    const { before, after, peak, steady } = rss.stop();
    const plain = await timedShell(dump(0), `${work}/hand.dump`);
    console.log('');
    console.log(`database ${mib(dbBytes)} MiB, dump ${mib(handBytes)} MiB by hand, ${mib(storedBytes)} MiB stored; load average ${load()} (1, 5, 15 min) at the end`);
    console.log(`throughput, Stevedore / hand pg_dump -Fc -Z 1 > file: median ${median(ratios).toFixed(2)}x of ${ROUNDS} rounds (${ratios.map((r) => r.toFixed(2)).join(', ')}; goal >= 0.9x)`);
    console.log(`hand uncompressed pg_dump -Fc -Z 0 > file: ${(plain.ms / 1000).toFixed(1)} s, ${mib(plain.bytes)} MiB (against ${(hand.ms / 1000).toFixed(1)} s for -Z 1 just before)`);
    console.log(`controller CPU per backup: ${(cpu / ROUNDS).toFixed(1)} s`);
    console.log(`controller RSS: ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak, ${steady.toFixed(0)} MiB steady, ${after.toFixed(0)} MiB after (goal: flat, under 150 MB = 143 MiB)`);
  } finally {
    if (!REUSE) await serverExec(SERVER, ['docker', 'rm', '-f', '--volumes', container]).catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
    await service.stop();
    fs.rmSync(`/tmp/${service.database}`, { recursive: true, force: true }); // its state dir, with the backup
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
