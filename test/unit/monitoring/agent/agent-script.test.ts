// The agent script's readings on this (Linux) machine, with `docker` on the PATH standing in for
// the daemon: its `docker stats` lines are fixed, so their parsing is checked to the byte.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SCRIPT = fileURLToPath(new URL('../../../../controller/monitoring/agent/stevedore-agent.sh', import.meta.url));
const run = promisify(execFile);

describe('agent script sample', () => {
  let bin: string;
  before(() => {
    bin = mkdtempSync(join(tmpdir(), 'agent-bin-'));
    const dataRoot = mkdtempSync(join(tmpdir(), 'agent-root-'));
    writeFileSync(join(bin, 'docker'), `#!/bin/sh
case "$1" in
  info) echo ${dataRoot} ;;
  stats) printf 'web-1\\t12.50%%\\t1.5MiB / 2GiB\\nodd"name\\t1%%\\t0B / 0B\\nidle\\t--\\t0B / 0B\\ndb\\t150.00%%\\t512kB / 1GB\\n' ;;
esac
`);
    chmodSync(join(bin, 'docker'), 0o755);
  });
  after(() => rmSync(bin, { recursive: true, force: true }));

  it('prints one JSON object with every reading in range and per-container stats in bytes', async () => {
    const { stdout } = await run('/bin/sh', [SCRIPT, 'sample'], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    const s = JSON.parse(stdout);
    expect(s.cpuPercent).to.be.within(0, 100);
    expect(s.memoryUsedBytes).to.be.above(0).and.below(s.memoryTotalBytes);
    expect(s.diskUsedBytes).to.be.at.most(s.diskTotalBytes);
    for (const k of ['load1', 'load5', 'load15', 'openFds', 'tcpConnections', 'processes', 'swapTotalBytes']) expect(s[k], k).to.be.a('number');
    expect(s.containers).to.deep.equal([
      { name: 'web-1', cpuPercent: 12.5, memoryUsedBytes: 1572864, memoryLimitBytes: 2147483648 },
      { name: 'idle', cpuPercent: 0, memoryUsedBytes: 0, memoryLimitBytes: 0 },
      { name: 'db', cpuPercent: 150, memoryUsedBytes: 512000, memoryLimitBytes: 1000000000 },
    ]);
  });

  it('says its version', async () => {
    const { stdout } = await run('/bin/sh', [SCRIPT, 'version']);
    expect(stdout.trim()).to.match(/^\d+\.\d+\.\d+$/);
  });
});
