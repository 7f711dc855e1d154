// The chaos harness's server faults (bench/chaos/faults/), each injected on the fleet and seen from
// outside the fault's own code, then restored and seen to recover; and the real controller through
// a cut link and a full disk. The disk faults need a loop disk: these tests attach one to the server
// they use (server.sh loop-disk) and take it away after, so the suite's fleets stay as they are.
import { spawn, type ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { hasLoopDisk, loadFleet, netemSupported, serverCtl, serverExec, type Fleet } from '../../fleet/fleet.js';
import type { FaultWorld, Injected } from '../../../bench/chaos/fault.js';
import { linkCut } from '../../../bench/chaos/faults/link-cut.js';
import { netem } from '../../../bench/chaos/faults/netem.js';
import { diskFull } from '../../../bench/chaos/faults/disk-full.js';
import { serverFaults } from '../../../bench/chaos/faults/server-faults.js';
import { assertHealthy, deployWaiting, startChaos, stopChaos, THROUGH_FAULTS, type Chaos } from './chaos-world.js';
import { until } from '../../support/until.js';

const run = promisify(execFile);
const LOOP_DISK_MB = 128;
const TERMINAL = ['succeeded', 'failed', 'rolled_back', 'rollback_failed', 'cancelled'];

/** A world whose pick() always draws the named server: the test knows where the fault lands. */
function worldOn(fleet: Fleet, server: string, random = () => 0.5): FaultWorld & { lines: string[] } {
  const lines: string[] = [];
  return {
    fleet, random, lines, log: (l) => lines.push(l),
    pick<T>(xs: readonly T[]): T {
      const x = xs.find((s) => (s as { name?: string }).name === server);
      if (x === undefined) throw new Error(`${server} is not among the fault's candidates`);
      return x;
    },
  };
}

/** A TCP connect to host:22 that reads the SSH banner: resolves with the time it took, rejects on error or timeout. */
function sshBanner(host: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = net.connect({ host, port: 22 });
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no answer from ${host}:22 within ${timeoutMs} ms`)); }, timeoutMs);
    socket.once('data', (d) => {
      clearTimeout(timer); socket.destroy();
      if (d.toString().startsWith('SSH-')) resolve(performance.now() - t0); else reject(new Error(`not an SSH banner: ${d}`));
    });
    socket.once('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

/** The TCP handshake's round trip to host:22, the median of n connects. */
async function connectRtt(host: string, n = 7): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    times.push(await new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const socket = net.connect({ host, port: 22 }, () => { resolve(performance.now() - t0); socket.destroy(); });
      socket.setTimeout(5000, () => { socket.destroy(); reject(new Error(`connect to ${host}:22 timed out`)); });
      socket.once('error', reject);
    }));
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}

/** An interactive `ssh sN cat`: lines written come back once they crossed the link twice. */
class EchoSession {
  readonly child: ChildProcess;
  out = '';
  constructor(fleet: Fleet, server: string) {
    this.child = spawn('ssh', ['-F', `${fleet.root}/ssh_config`, server, 'cat'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (d: Buffer) => { this.out += d.toString(); });
  }
  send(line: string): void { this.child.stdin!.write(`${line}\n`); }
  /** The session's TCP socket as `ss` sees it: its state and how many segments it retransmitted. */
  async socket(host: string): Promise<{ state: string; retransmitted: number } | null> {
    const { stdout } = await run('ss', ['-Htnpi', 'dst', host, 'dport', '=', ':22']);
    const lines = stdout.split('\n');
    const i = lines.findIndex((l) => l.includes(`pid=${this.child.pid},`));
    if (i < 0) return null;
    return { state: lines[i].trim().split(/\s+/)[0], retransmitted: Number(/retrans:\d+\/(\d+)/.exec(lines[i + 1] ?? '')?.[1] ?? 0) };
  }
  close(): void { this.child.kill('SIGKILL'); }
}

const dfAvail = async (fleet: Fleet, server: string) =>
  Number((await serverExec(server, ['df', '-B1', '--output=avail', `${fleet.root}/${server}/data`])).trim().split('\n').at(-1));

/** Attaches a loop disk to the server unless it has one; returns the undo (a no-op when it had one). */
async function withLoopDisk(fleet: Fleet, server: string): Promise<() => Promise<void>> {
  if (hasLoopDisk(fleet, server)) return async () => undefined;
  await serverCtl(server, { action: 'loop-disk', mb: LOOP_DISK_MB }, fleet);
  return async () => { await serverCtl(server, 'loop-disk-off', fleet); };
}

describe('server faults of the chaos harness (e2e)', function () {
  this.timeout(240_000);
  const fleet = loadFleet();

  it('serverFaults() are link-cut, netem and disk-full', () => {
    expect(serverFaults().map((f) => f.name)).to.deep.equal(['link-cut', 'netem', 'disk-full']);
  });

  describe('each fault seen from outside, and its restore', () => {
    const server = 's3';
    const host = () => fleet.servers.find((s) => s.name === server)!.host;
    let injected: Injected | undefined;
    afterEach(async () => { await injected?.restore(); injected = undefined; });

    it('link-cut: new connections to :22 fail, an established SSH session stalls; restore: the same session carries on', async () => {
      const world = worldOn(fleet, server);
      const session = new EchoSession(fleet, server);
      try {
        session.send('before');
        await until('the SSH session to echo', () => session.out.includes('before\n'), { timeoutMs: 20_000 });
        injected = await linkCut().inject(world);
        expect(injected.target).to.equal(server);
        session.send('during');
        // the session is not reset: its socket stays ESTABLISHED and retransmits what it cannot deliver
        await until('the SSH session to retransmit over the cut link', async () => {
          const s = await session.socket(host());
          return s !== null && s.state === 'ESTAB' && s.retransmitted > 0;
        }, { timeoutMs: 20_000, everyMs: 100 });
        expect(session.out, 'nothing crosses the cut link').to.not.include('during');
        let refused: unknown;
        await sshBanner(host(), 3000).catch((e) => { refused = e; });
        expect(String(refused), 'a new connection fails or times out').to.match(/within 3000 ms|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT/);
        expect(session.child.exitCode, 'the session outlives the cut').to.equal(null);

        await injected.restore();
        await injected.restore(); // idempotent
        await until('the stalled line to arrive once the link is back', () => session.out.includes('during\n'), { timeoutMs: 30_000 });
        await until('a new connection to be answered', () => sshBanner(host(), 3000), { timeoutMs: 20_000, retryErrors: true });
      } finally {
        session.close();
      }
    });

    it('netem: the round trip grows by about the drawn delay; restore: it shrinks back', async function () {
      const world = worldOn(fleet, server);
      const fault = netem();
      const supported = await netemSupported();
      expect(await fault.available(world), 'available() says whether tc and the kernel netem qdisc are here').to.equal(supported);
      if (!supported) {
        console.log('      (skipped: this kernel has no netem qdisc, CONFIG_NET_SCH_NETEM; the fault is unavailable here)');
        this.skip();
      }
      const before = await connectRtt(host());
      injected = await fault.inject(world);
      const m = /^delay (\d+)ms ±(\d+)ms loss (\d+)%$/.exec(injected.detail ?? '');
      expect(m, injected.detail).to.not.equal(null);
      const [delay, jitter] = [Number(m![1]), Number(m![2])];
      const qdisc = (await run('tc', ['qdisc', 'show', 'dev', `sd${fleet.fleetId}-${server}`])).stdout;
      expect(qdisc).to.match(new RegExp(`netem .*delay ${delay}ms`));
      const during = await connectRtt(host());
      expect(during - before, `RTT ${before.toFixed(1)} -> ${during.toFixed(1)} ms for ${injected.detail}`).to.be.within(delay - jitter - 5, delay + jitter + 50);
      await injected.restore();
      await injected.restore();
      expect((await run('tc', ['qdisc', 'show', 'dev', `sd${fleet.fleetId}-${server}`])).stdout).to.not.include('netem');
      const after = await connectRtt(host());
      expect(after, `RTT after restore ${after.toFixed(1)} ms`).to.be.below(before + delay / 2);
    });

    it('disk-full: df shows no space and a pull fails for it; restore: space is back and the pull works', async () => {
      const world = worldOn(fleet, server);
      const fault = diskFull();
      const detach = await withLoopDisk(fleet, server);
      try {
        expect(await fault.available(world)).to.equal(true);
        const image = fleet.images.busybox;
        injected = await fault.inject(world);
        expect(injected.detail).to.match(/^filled \d+ MB$/);
        expect(await dfAvail(fleet, server), 'bytes free on the full disk').to.be.below(64 * 1024);
        let pull: unknown;
        await serverExec(server, ['docker', 'pull', image]).catch((e) => { pull = e; });
        expect(String(pull)).to.match(/no space left on device/);

        await injected.restore();
        await injected.restore();
        injected = undefined;
        expect(await dfAvail(fleet, server), 'bytes free after restore').to.be.above((LOOP_DISK_MB / 2) * 1048576);
        await serverExec(server, ['docker', 'pull', image]);
        await serverExec(server, ['docker', 'rmi', image]);
      } finally {
        await injected?.restore();
        injected = undefined;
        await detach();
      }
    });

    it('disk-full is unavailable on a fleet without loop disks', async function () {
      const plain = fleet.servers.filter((s) => !hasLoopDisk(fleet, s.name));
      if (plain.length !== fleet.servers.length) this.skip(); // this fleet was brought up with FLEET_LOOP_DISK_MB
      expect(await diskFull().available(worldOn(fleet, server))).to.equal(false);
    });
  });

  describe('the real controller through a cut link and a full disk', () => {
    // startChaos deploys the service on s1 and s2; the faults land on s2
    const server = 's2';
    let c: Chaos;
    let detach: () => Promise<void> = async () => undefined;
    let injected: Injected | undefined;
    let tag = 'v1';
    const other = () => (tag === 'v1' ? 'v2' : 'v1');

    before(async () => {
      detach = await withLoopDisk(fleet, server);
      c = await startChaos('srvfaults');
    });
    afterEach(async () => { await injected?.restore(); injected = undefined; });
    after(async () => {
      await stopChaos(c);
      await detach();
    });

    async function planEnd(planId: string, timeoutMs: number) {
      return until(`plan ${planId} to end`, async () => {
        const row = await c.db('deployment_plans').where({ id: planId }).first();
        return TERMINAL.includes(row.status) ? row : null;
      }, { ...THROUGH_FAULTS, timeoutMs, everyMs: 250 });
    }
    const stepErrors = async (planId: string) =>
      (await c.db('plan_steps').where({ planId }).whereNotNull('error').select('error')).map((s) => String(s.error)).join('\n');

    it('a deploy while a server\'s link is cut ends (no plan left running); after restore the next deploy succeeds', async () => {
      injected = await linkCut().inject(worldOn(fleet, server));
      tag = other();
      const res = await c.api().post(`/api/services/${c.app.service.id}/deploy`, { imageTag: tag, strategy: 'parallel' });
      expect(res.status, res.text).to.equal(202);
      // the link stays cut until the plan has ended: the controller must give up on s2, not wait forever
      const plan = await planEnd(res.body.id, 150_000);
      if (plan.status === 'succeeded') throw new Error(`a deploy onto an unreachable ${server} says it succeeded`);
      expect(plan.status).to.be.oneOf(['failed', 'rolled_back', 'rollback_failed']);
      // the API kept answering from the database meanwhile
      const read = await c.api().get(`/api/deployment-plans/${plan.id}`);
      expect(read.status, read.text).to.equal(200);
      expect(read.body.status).to.equal(plan.status);
      expect(String(plan.error), 'the plan says which server, and why').to.match(new RegExp(`${server}.*(unreachable|timed out)`));
      await injected.restore();
      injected = undefined;
      tag = other();
      await deployWaiting(c.api(), c.app.service.id, tag);
      await assertHealthy(c, { versions: [tag] });
    });

    it('a deploy onto a full disk fails with "no space left on device"; after restore a deploy succeeds', async () => {
      injected = await diskFull().inject(worldOn(fleet, server));
      expect(injected.target).to.equal(server);
      tag = other();
      const res = await c.api().post(`/api/services/${c.app.service.id}/deploy?wait=true`, { imageTag: tag, strategy: 'parallel' });
      expect(res.status, res.text).to.be.oneOf([200, 202]);
      const plan = await planEnd(res.body.id, 120_000);
      expect(plan.status, 'status never lies').to.be.oneOf(['failed', 'rolled_back', 'rollback_failed']);
      expect(await stepErrors(plan.id)).to.match(/no space left on device/);
      expect(String(plan.error), 'the plan says which server, and why').to.match(new RegExp(`on ${server} failed: .*no space left on device`));
      await injected.restore();
      injected = undefined;
      tag = other();
      await deployWaiting(c.api(), c.app.service.id, tag);
      await assertHealthy(c, { versions: [tag] });
    });
  });
});
