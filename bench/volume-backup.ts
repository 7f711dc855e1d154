// bench/volume-backup.ts - a volume backup through Stevedore against the same copy by hand, on the
// test fleet (docs/volumes.md):
//   (1) throughput as a ratio to `ssh s1 docker run --rm --volumes-from HOLDER busybox tar -C /v
//       -cf - . | gzip -1 > file` of the same volume, in BENCH_ROUNDS rounds (default 3), each
//       backup between two hand copies; the median ratio is the figure;
//   (2) the controller's RSS (the real service as a child process, sampled every 100 ms): before,
//       peak, steady (median of the second half) and after, and its CPU seconds per backup.
// The volume holds BENCH_VOLUME_MB (default 128) of files, half random bytes and half text, so
// gzip gets about 2:1 on it.
//   FLEET_ID=n (fleet up, fleet.env sourced) DATABASE_URL=postgres://… npx tsx bench/volume-backup.ts
// The load average is printed with the figures: on a shared machine they compare within one run.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { loadFleet, serverExec } from '../test/fleet/fleet.js';
import { startServiceProcess } from './support/service-process.js';
import { cpuSeconds } from './support/process-stats.js';
import { benchServer, load, median, mib, request, sampleRss, sleep, timedShell } from './support/copy-bench.js';

const adminUrl = process.env.DATABASE_URL;
const MB = Number(process.env.BENCH_VOLUME_MB ?? 128);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERVER = 's1';

async function main() {
  if (!adminUrl) throw new Error('set DATABASE_URL (fleet.env has it)');
  const fleet = loadFleet();
  const busybox = fleet.images.busybox;
  const service = await startServiceProcess({ adminUrl, prefix: 'stevedore_bench_volume', env: { SCHEDULER_BACKUP_SEC: '3600', VOLUME_HELPER_IMAGE: busybox } });
  const work = fs.mkdtempSync('/tmp/stevedore-bench-volume-');
  const holder = `bench-volume-holder-${crypto.randomBytes(3).toString('hex')}`;
  let dockerName = '';
  try {
    const port = service.port;
    const { jwt, env, server } = await benchServer(port, fleet.servers.find((x) => x.name === SERVER)!);
    const volume = await request(port, 'POST', `/api/environments/${env.id}/volumes`, jwt, { name: 'bench', serverId: server.id, backup: { schedule: '0 3 * * *', consistency: 'none' } });
    dockerName = volume.dockerName;
    await serverExec(SERVER, ['docker', 'volume', 'create', '--label', `stevedore.volume-id=${volume.id}`, dockerName]);
    const filled = performance.now();
    const half = Math.max(1, Math.round(MB / 2));
    await serverExec(SERVER, ['docker', 'run', '--rm', '-v', `${dockerName}:/v`, busybox, 'sh', '-c',
      `mkdir -p /v/random /v/text && i=0; while [ $i -lt ${half} ]; do dd if=/dev/urandom of=/v/random/$i bs=1048576 count=1 2>/dev/null; `
      + `yes "line $i of a text file that compresses well enough, as logs and documents do" | head -c 1048576 > /v/text/$i; i=$((i+1)); done`]);
    // the hand copy's --volumes-from needs a container that mounts the volume
    await serverExec(SERVER, ['docker', 'create', '--name', holder, '-v', `${dockerName}:/v`, busybox, 'true']);
    console.log(`volume: ${MB} MiB of files, filled in ${((performance.now() - filled) / 1000).toFixed(0)} s`);
    const hand = () => timedShell(
      `ssh -F ${fleet.root}/ssh_config ${SERVER} docker run --rm --volumes-from ${holder} ${busybox} tar -C /v -cf - . | gzip -1 > ${work}/hand.tar.gz`, `${work}/hand.tar.gz`, 'hand copy');

    const pid = service.child.pid!;
    const rss = await sampleRss(pid);
    const ratios: number[] = [];
    let cpu = 0;
    let stored = 0;
    let tarBytes = 0;
    let handBytes = 0;
    let previous = await hand();
    for (let round = 1; round <= ROUNDS; round++) {
      const cpuBefore = cpuSeconds(pid);
      const started = performance.now();
      let b = await request(port, 'POST', `/api/volumes/${volume.id}/backups`, jwt, { storage: 'local' });
      while (b.status === 'running') {
        await sleep(100);
        b = await request(port, 'GET', `/api/volume-backups/${b.id}`, jwt);
      }
      const ms = performance.now() - started;
      cpu += cpuSeconds(pid) - cpuBefore;
      if (b.status !== 'succeeded') throw new Error(`the backup failed: ${b.error}`);
      stored = b.sizeBytes;
      tarBytes = b.tarBytes;
      const next = await hand();
      handBytes = next.bytes;
      const floor = (previous.ms + next.ms) / 2;
      ratios.push(floor / ms);
      console.log(`round ${round}: hand tar | gzip -1 ${(previous.ms / 1000).toFixed(1)} s, Stevedore backup (SHA-256, fsynced) ${(ms / 1000).toFixed(1)} s, hand ${(next.ms / 1000).toFixed(1)} s: ${(floor / ms).toFixed(2)}x; load ${load()}`);
      previous = next;
    }
    const { before, after, peak, steady } = rss.stop();
    console.log('');
    console.log(`tar ${mib(tarBytes)} MiB, ${mib(stored)} MiB stored, ${mib(handBytes)} MiB by hand; load average ${load()} at the end`);
    console.log(`throughput, Stevedore / hand docker run --volumes-from … tar | gzip -1: median ${median(ratios).toFixed(2)}x of ${ROUNDS} rounds (${ratios.map((r) => r.toFixed(2)).join(', ')})`);
    console.log(`controller CPU per backup: ${(cpu / ROUNDS).toFixed(1)} s`);
    console.log(`controller RSS: ${before.toFixed(0)} MiB before, ${peak.toFixed(0)} MiB peak, ${steady.toFixed(0)} MiB steady, ${after.toFixed(0)} MiB after`);
  } finally {
    await serverExec(SERVER, ['docker', 'rm', '-f', holder]).catch(() => undefined);
    if (dockerName) await serverExec(SERVER, ['docker', 'volume', 'rm', '-f', dockerName]).catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
    await service.stop();
    fs.rmSync(`/tmp/${service.database}`, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
