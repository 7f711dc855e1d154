// The pure parts of managed volumes (docs/volumes.md): Docker names and the environment they
// carry, a service's entries resolved to short syntax, placement on the volume's server, the
// tar entry count behind "an empty copy is not a backup", a server's inventory, the backup block's
// rules and the container policy's fence on other environments' managed volumes.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  dockerVolumeName, environmentOfVolumeName, resolveVolumeEntries, volumeServerOf,
} from '../../../controller/model/volume-mount.js';
import { tarEntries } from '../../../controller/volumes/tar-entries.js';
import { inventoryOf, parseLabels } from '../../../controller/volumes/inventory.js';
import { backupProblem, labelsProblem } from '../../../controller/kinds/volume.js';
import { containerPolicyRefusals, DEFAULT_CONTAINER_POLICY } from '../../../controller/deploy/container-policy.js';
import { readYamlValue } from '../../../controller/yaml/read-yaml.js';

const ENV = '11111111-2222-4333-8444-555555555555';
const OTHER = '99999999-2222-4333-8444-555555555555';

async function countOf(tar: Buffer, chunk = 700): Promise<number> {
  const e = tarEntries();
  const parts = [];
  for (let i = 0; i < tar.length; i += chunk) parts.push(tar.subarray(i, i + chunk));
  await pipeline(Readable.from(parts), e.stream, new Writable({ write: (_c, _e, done) => done() }));
  return e.entries();
}

describe('managed volumes, the pure parts', () => {
  it('names a Docker volume after its environment, and reads the environment back', () => {
    expect(dockerVolumeName(ENV, 'data')).to.equal(`stevedore-${ENV}-data`);
    expect(dockerVolumeName(ENV, 'data', 'restore-ab12')).to.equal(`stevedore-${ENV}-data-restore-ab12`);
    expect(environmentOfVolumeName(`stevedore-${ENV}-data`)).to.equal(ENV);
    expect(environmentOfVolumeName('data')).to.equal(null);
    expect(environmentOfVolumeName('stevedore-data')).to.equal(null);
  });

  it('resolves {volume, mount, readOnly} to short syntax and keeps strings as written; an unknown name throws naming it', () => {
    const names = new Map([['data', `stevedore-${ENV}-data`]]);
    expect(resolveVolumeEntries([{ volume: 'data', mount: '/d' }, { volume: 'data', mount: '/r', readOnly: true }, '/srv:/srv'], names))
      .to.deep.equal([`stevedore-${ENV}-data:/d`, `stevedore-${ENV}-data:/r:ro`, '/srv:/srv']);
    expect(() => resolveVolumeEntries([{ volume: 'nope', mount: '/d' }], names)).to.throw(/volumes.0: no volume 'nope'/);
  });

  it('places a service on the one server of its volumes, and says so when they are on two', () => {
    const servers = new Map([['a', { serverId: 's1' }], ['b', { serverId: 's1' }], ['c', { serverId: 's2' }]]);
    expect(volumeServerOf([{ volume: 'a', mount: '/a' }, { volume: 'b', mount: '/b' }], servers)).to.deep.equal({ serverId: 's1', problem: null });
    expect(volumeServerOf([{ volume: 'a', mount: '/a' }, { volume: 'c', mount: '/c' }], servers).problem).to.match(/different servers/);
  });

  it('counts tar entries across chunk boundaries, ignoring the root ./ and long-name headers', async function () {
    this.timeout(20_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'vol-tar-'));
    const empty = path.join(dir, 'empty');
    mkdirSync(empty);
    expect(await countOf(execFileSync('tar', ['-C', empty, '-cf', '-', '.']))).to.equal(0);
    const full = path.join(dir, 'full');
    mkdirSync(path.join(full, 'sub'), { recursive: true });
    writeFileSync(path.join(full, 'a.txt'), 'x'.repeat(1300));
    writeFileSync(path.join(full, 'sub', `${'long'.repeat(40)}.bin`), Buffer.alloc(5000, 7));
    // ./a.txt, ./sub/, ./sub/long…: three, whatever the chunking
    for (const chunk of [1, 511, 512, 700, 65536]) expect(await countOf(execFileSync('tar', ['-C', full, '-cf', '-', '.']), chunk)).to.equal(3);
  });

  it("reads a server's inventory: managed only when the store names it and it carries that volume's label", () => {
    const managed = [{ id: 'v1', environmentId: ENV, name: 'data', dockerName: null }, { id: 'v2', environmentId: ENV, name: 'fake', dockerName: null }] as never;
    const ls = [
      JSON.stringify({ Name: `stevedore-${ENV}-data`, Driver: 'local', Labels: 'stevedore.volume-id=v1,team=x' }),
      JSON.stringify({ Name: `stevedore-${ENV}-fake`, Driver: 'local', Labels: '' }),
      JSON.stringify({ Name: 'pgdata', Driver: 'local', Labels: '' }),
    ].join('\n');
    const mounts = `web\trunning\tstevedore-${ENV}-data,/srv\nold\texited\tpgdata\n`;
    const inv = inventoryOf(ls, mounts, managed);
    expect(inv.map((v) => [v.dockerName, v.managed, v.volumeId])).to.deep.equal([
      ['pgdata', false, null], [`stevedore-${ENV}-data`, true, 'v1'], [`stevedore-${ENV}-fake`, false, null],
    ]);
    expect(inv[1].containers).to.deep.equal([{ name: 'web', running: true }]);
    expect(inv[0].containers).to.deep.equal([{ name: 'old', running: false }]);
    expect(parseLabels('a=b,c=d=e')).to.deep.equal({ a: 'b', c: 'd=e' });
  });

  it('checks a backup block: its crons (backup and drill), and a command only with consistency command', () => {
    expect(backupProblem({ schedule: '0 3 * * *' })).to.equal(null);
    expect(backupProblem({ schedule: 'nightly' })?.field).to.equal('backup.schedule');
    expect(backupProblem({ schedule: '0 3 * * *', consistency: 'command' })?.field).to.equal('backup.command');
    expect(backupProblem({ schedule: '0 3 * * *', consistency: 'stop', command: ['sync'] })?.field).to.equal('backup.command');
    expect(backupProblem({ schedule: '0 3 * * *', consistency: 'command', command: ['sync'] })).to.equal(null);
    // a drill schedule is a cron as the backup's is (UTC, 6 fields with seconds allowed)
    expect(backupProblem({ schedule: '0 3 * * *', drillSchedule: '*/10 * * * * *', drillCheckCommand: 'test -f a' })).to.equal(null);
    expect(backupProblem({ schedule: '0 3 * * *', drillSchedule: null })).to.equal(null);
    const bad = backupProblem({ schedule: '0 3 * * *', drillSchedule: '0 25 * * *' });
    expect(bad?.field).to.equal('backup.drillSchedule');
    expect(bad?.message).to.match(/^'0 25 \* \* \*': Invalid cron expression/);
    expect(labelsProblem({ 'stevedore.volume-id': 'x' })?.field).to.equal('labels');
  });

  it("fences other environments' managed volumes: short syntax and compose names, not the own ones nor plain names", () => {
    const refusals = (volumes: string[], compose?: string) => containerPolicyRefusals({
      volumes, ownDir: '/opt/stevedore/deployments/x', environmentId: ENV,
      compose: compose ? { doc: readYamlValue(compose, 'composeTemplate', 'composeTemplate'), field: 'composeTemplate' } : null,
    }, DEFAULT_CONTAINER_POLICY);
    expect(refusals([`stevedore-${OTHER}-data:/d`])[0].message).to.match(/managed volume of another environment; the container policy baseline/);
    expect(refusals([`stevedore-${ENV}-data:/d`, 'pgdata:/var/lib/pg', '/tmp'])).to.deep.equal([]);
    const external = `services:\n  x:\n    image: i\nvolumes:\n  loot:\n    external: true\n    name: stevedore-${OTHER}-data\n`;
    expect(refusals([], external).map((r) => r.field)).to.deep.equal(['composeTemplate']);
    const byKey = `services:\n  x:\n    image: i\nvolumes:\n  stevedore-${OTHER}-data:\n    external: true\n`;
    expect(refusals([], byKey)).to.have.length(1);
    const own = `services:\n  x:\n    image: i\nvolumes:\n  mine:\n    name: stevedore-${ENV}-data\n`;
    expect(refusals([], own)).to.deep.equal([]);
  });
});
