import { expect } from 'chai';
import { CommandFailed, CommandTimeout } from '../../../controller/hosts/errors.js';
import { serverExec } from '../../fleet/fleet.js';
import { hostLayer, scratchDir, type HostLayer } from './host-layer.js';

describe('ssh driver exec (e2e)', () => {
  let h: HostLayer;
  const dir = scratchDir();
  before(() => { h = hostLayer(); });
  after(async () => {
    await Promise.all(h.names.map((n) => h.driver.exec(n, ['rm', '-rf', '--', dir]).catch(() => undefined)));
    await h.pool.close();
  });

  it('runs a command on every server and reuses one connection each', async () => {
    for (let round = 0; round < 3; round++) {
      const out = await Promise.all(h.names.map((n) => h.driver.exec(n, ['hostname'])));
      expect(out.map((r) => r.stdout.trim())).to.deep.equal(h.names);
    }
    for (const n of h.names) expect(h.pool.connectCount(n)).to.equal(1);
  });

  it('passes a hostile argument literally and creates nothing else', async () => {
    // were it interpreted, the substitutions would create pwned* in the login dir (/root) or in dir
    const hostile = `$(touch pwned)\`touch pwned2\`;touch pwned3 'q' "d"\nnl $HOME *`;
    await h.driver.exec('s1', ['mkdir', '-p', '--', dir]);
    await h.driver.exec('s1', ['touch', '--', `${dir}/${hostile}`, `${dir}/`]).catch(() => undefined); // "dir/" fails harmlessly
    await h.driver.exec('s1', ['touch', '--', `${dir}/${hostile}`]);
    const echoed = await h.driver.exec('s1', ['echo', '$(id)', '`id`', "it's", '', '*']);
    expect(echoed.stdout).to.equal("$(id) `id` it's  *\n");
    // checked on the server itself, not through the code under test
    expect(await serverExec('s1', ['ls', '-A', dir])).to.equal(`${hostile}\n`);
    expect(await serverExec('s1', ['sh', '-c', 'ls -A /root /srv | grep -c pwned || true'])).to.equal('0\n');
  });

  it('feeds stdin to the command', async () => {
    const r = await h.driver.exec('s2', ['cat'], { stdin: 'line one\nline two\n' });
    expect(r.stdout).to.equal('line one\nline two\n');
  });

  it('throws CommandFailed with the exit code and stderr tail', async () => {
    const err = await h.driver.exec('s2', ['sh', '-c', 'echo out; echo broken >&2; exit 3']).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(CommandFailed);
    expect((err as CommandFailed).exitCode).to.equal(3);
    expect((err as CommandFailed).stderrTail).to.equal('broken');
    expect((err as CommandFailed).retryable).to.equal(false);
  });

  it('returns a non-zero exit instead of throwing when check is false', async () => {
    const r = await h.driver.exec('s2', ['sh', '-c', 'exit 7'], { check: false });
    expect(r.code).to.equal(7);
  });

  it('times out a slow command and the connection stays usable', async () => {
    const t0 = performance.now();
    const err = await h.driver.exec('s3', ['sleep', '5'], { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(CommandTimeout);
    expect(performance.now() - t0).to.be.below(1000);
    expect((await h.driver.exec('s3', ['echo', 'still here'])).stdout).to.equal('still here\n');
  });

  it('bounds channels per connection but runs many commands concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => h.driver.exec('s1', ['echo', String(i)])));
    expect(results.map((r) => r.stdout.trim())).to.deep.equal(Array.from({ length: 40 }, (_, i) => String(i)));
  });
});
