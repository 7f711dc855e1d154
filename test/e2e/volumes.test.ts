// Managed volumes on the fleet (docs/volumes.md): a service mounting a volume by name gets the
// Docker volume (with its ownership labels) before its container; it writes files there; backups
// (scheduled to S3-compatible storage through s3rver, and now to the local folder) store a tar
// of it verified by SHA-256; a restore brings the files back byte for byte into a new volume the
// service is recreated on; a corrupted backup fails and keeps the data; a drill checks a scratch
// copy and removes it, on request and on its schedule; a copy that fails leaves the service running and says why. Everything
// is checked on the server (docker on s1) or in the store itself.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { loadFleet, serverExec } from '../fleet/fleet.js';
import { startS3Server, type S3Server } from '../support/s3-server.js';
import { until } from '../support/until.js';
import { cleanup, startWorld, type World } from './deploy/deploy-world.js';

const WAIT = { timeoutMs: 120_000, everyMs: 200 };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('managed volumes on the fleet', function () {
  this.timeout(240_000);
  let w: World;
  let s3: S3Server;
  let volumeId: string;
  let serviceId: string;
  let container: string;

  const sh = (script: string) => serverExec('s1', ['docker', 'exec', container, 'sh', '-c', script]);
  const state = async () => (await serverExec('s1', ['docker', 'inspect', '--format', '{{.State.Status}}', container])).trim();
  /** What the service sees in its volume: each file's SHA-256. */
  const contents = async () => (await sh('cd /data && find . -type f | sort | xargs sha256sum')).trim();
  /** The names of the Docker volumes on s1. */
  const dockerVolumes = async () => (await serverExec('s1', ['docker', 'volume', 'ls', '-q'])).split('\n').map((l) => l.trim()).filter(Boolean);
  const volumeNow = async () => (await w.admin.get(`/api/volumes/${volumeId}`)).body;
  const finished = (apiPath: string) => until(apiPath, async () => {
    const res = await w.admin.get(apiPath);
    expect(res.status, res.text).to.equal(200);
    return res.body.status === 'running' ? undefined : res.body;
  }, WAIT);
  const backup = async (storage: 'local' | 's3') => {
    const res = await w.admin.post(`/api/volumes/${volumeId}/backups`, { storage });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.status).to.equal('running');
    return finished(`/api/volume-backups/${res.body.id}`);
  };
  let written: string;

  before(async function () {
    this.timeout(300_000);
    const fleet = loadFleet();
    [w, s3] = await Promise.all([startWorld({ SCHEDULER_BACKUP_SEC: '1', VOLUME_HELPER_IMAGE: fleet.images.busybox }), startS3Server(['volumes'])]);
    await w.admin.put('/api/settings/storage-space', {
      endpoint: s3.endpoint, region: s3.region, bucket: 'volumes', accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true,
    });
    await w.admin.patch(`/api/environments/${w.envId}/storage`, { enabled: true, prefix: 'e2e' });
    const vol = await w.admin.post(`/api/environments/${w.envId}/volumes`, { name: `files-${w.tag}`, serverId: w.servers.s1, labels: { purpose: 'e2e' } });
    expect(vol.status, vol.text).to.equal(201);
    volumeId = vol.body.id;
    const svc = await w.admin.post(`/api/environments/${w.envId}/services`, {
      name: `files-${w.tag}`, containerImageId: w.imageId, imageTag: 'v1', volumes: [{ volume: `files-${w.tag}`, mount: '/data' }],
    });
    expect(svc.status, svc.text).to.equal(201);
    serviceId = svc.body.id;
    container = `files-${w.tag}-s1`;
    const dep = await w.admin.post(`/api/services/${serviceId}/deployments`, { serverId: w.servers.s1, containerName: container });
    expect(dep.status, dep.text).to.equal(201);
    const plan = await w.admin.post(`/api/services/${serviceId}/deploy?wait=true`, {});
    expect(plan.body.status, plan.text).to.equal('succeeded');
    // the service writes its files: text, a directory, a symlink, and bytes of every value
    await sh(`mkdir -p /data/dir && printf 'anchor\\n' > /data/a.txt && ln -s a.txt /data/link`);
    await sh(`i=0; while [ $i -lt 256 ]; do printf "\\\\$(printf %o $i)"; i=$((i+1)); done > /data/dir/b.bin`);
    written = await contents();
  });

  after(async () => {
    if (w) {
      await serverExec('s1', ['sh', '-c', `docker volume ls -q | grep -- '-files-${w.tag}' | xargs -r docker volume rm -f`]).catch(() => undefined);
    }
    await cleanup(w);
    await s3?.stop();
  });

  it('creates the Docker volume with its ownership labels before the container, and reports its size and users', async () => {
    const name = `stevedore-${w.envId}-files-${w.tag}`;
    const labels = JSON.parse(await serverExec('s1', ['docker', 'volume', 'inspect', '--format', '{{json .Labels}}', name]));
    expect(labels).to.include({ 'stevedore.volume-id': volumeId, 'stevedore.environment-id': w.envId, 'stevedore.managed': 'true', purpose: 'e2e' });
    const mounts = await serverExec('s1', ['docker', 'inspect', '--format', '{{range .Mounts}}{{.Name}}:{{.Destination}} {{end}}', container]);
    expect(mounts).to.include(`${name}:/data`);
    const usage = (await w.admin.get(`/api/volumes/${volumeId}/usage`)).body;
    expect(usage).to.deep.include({ dockerName: name, exists: true, containers: [{ name: container, running: true }] });
    expect(usage.sizeBytes).to.be.greaterThan(0);
    // an unmanaged volume on the server is listed for adoption, the managed one as managed
    await serverExec('s1', ['docker', 'volume', 'create', `loose-files-${w.tag}`]);
    const listed = (await w.admin.get(`/api/servers/${w.servers.s1}/volumes`)).body.items as Array<{ dockerName: string; managed: boolean; volumeId: string | null }>;
    expect(listed.find((v) => v.dockerName === name)).to.include({ managed: true, volumeId });
    expect(listed.find((v) => v.dockerName === `loose-files-${w.tag}`)).to.include({ managed: false, volumeId: null });
    await serverExec('s1', ['docker', 'volume', 'rm', `loose-files-${w.tag}`]);
  });

  it('a scheduled backup (consistency stop) stores the tar in S3, verified, and the service runs again', async () => {
    await w.admin.patch(`/api/volumes/${volumeId}`, { backup: { schedule: '* * * * * *', keepLast: 2 } });
    const scheduled = await until('a scheduled backup', async () => {
      const items = (await w.admin.get(`/api/volumes/${volumeId}/backups`)).body.items as any[];
      return items.find((b) => b.trigger === 'schedule' && b.status !== 'running');
    }, WAIT);
    await w.admin.patch(`/api/volumes/${volumeId}`, { backup: null });
    // a scheduled copy that started meanwhile ends before the next test backs up by hand (one at a time: 409)
    await until('no backup running', async () =>
      !((await w.admin.get(`/api/volumes/${volumeId}/backups`)).body.items as any[]).some((b) => b.status === 'running'), WAIT);
    expect(scheduled, JSON.stringify(scheduled)).to.include({ status: 'succeeded', storage: 's3', bucket: 'volumes', consistency: 'stop', error: null });
    const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, forcePathStyle: true, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
    const obj = await client.send(new GetObjectCommand({ Bucket: 'volumes', Key: scheduled.objectKey }));
    const bytes = Buffer.from(await obj.Body!.transformToByteArray());
    client.destroy();
    expect(sha256(bytes)).to.equal(scheduled.sha256);
    expect(gunzipSync(bytes).length).to.equal(scheduled.tarBytes);
    await until('the service running again', async () => (await state()) === 'running', WAIT);
  });

  it('a backup now to the local folder: the stored file is the gzipped tar of the files, its SHA-256 recorded', async () => {
    const b = await backup('local');
    expect(b, JSON.stringify(b)).to.include({ status: 'succeeded', storage: 'local' });
    const stored = readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey));
    expect(sha256(stored)).to.equal(b.sha256);
    expect(stored.length).to.equal(b.sizeBytes);
    const tar = gunzipSync(stored).toString('latin1');
    expect(tar).to.include('./a.txt').and.include('./dir/b.bin').and.include('anchor');
    expect(await state()).to.equal('running');
  });

  it('consistency command runs its command in the running container first (never with exec off), the service never stopped', async () => {
    const id = (await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}} {{.State.StartedAt}}', container])).trim();
    await w.admin.patch(`/api/volumes/${volumeId}`, { backup: { schedule: '0 3 * * *', consistency: 'command', command: ['sh', '-c', 'echo flushed > /data/flushed.txt'] } });
    try {
      const b = await backup('local');
      expect(b, JSON.stringify(b)).to.include({ status: 'succeeded', consistency: 'command' });
      const tar = gunzipSync(readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey))).toString('latin1');
      expect(tar).to.include('./flushed.txt').and.include('flushed\n');
      // the same container, started once: it was not stopped for the copy
      expect((await serverExec('s1', ['docker', 'inspect', '--format', '{{.Id}} {{.State.StartedAt}}', container])).trim()).to.equal(id);
      await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: false });
      const refused = await backup('local');
      expect(refused.status).to.equal('failed');
      expect(refused.error).to.match(/operations.allowExec is off/);
    } finally {
      await w.admin.patch(`/api/environments/${w.envId}/settings/operations`, { allowExec: true });
      await w.admin.patch(`/api/volumes/${volumeId}`, { backup: null });
      await sh('rm -f /data/flushed.txt');
    }
  });

  it('a restore brings the files back byte for byte on a new volume, the service running on it, the old one removed', async () => {
    const b = await backup('local');
    const before = (await volumeNow()).dockerName as string;
    await sh('printf changed > /data/a.txt && rm -rf /data/dir && echo new > /data/new.txt');
    expect(await contents()).to.not.equal(written);
    const res = await w.admin.post(`/api/volume-backups/${b.id}/restore`, { confirm: `files-${w.tag}` });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/volume-restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded', target: 'volume', previousDockerName: before });
    expect((await volumeNow()).dockerName).to.equal(r.newDockerName);
    await until('the service running again', async () => (await state()) === 'running', WAIT);
    expect(await contents()).to.equal(written);
    expect((await sh('readlink /data/link')).trim()).to.equal('a.txt');
    const volumes = await dockerVolumes();
    expect(volumes).to.not.include(before);
    expect(volumes).to.include(r.newDockerName);
  });

  it('a restore from a corrupted backup fails with the reason and keeps the current data', async () => {
    const b = await backup('local');
    const file = path.join(w.svc.stateDir, 'backups', b.objectKey);
    const damaged = readFileSync(file);
    damaged[Math.floor(damaged.length / 2)] ^= 0xff;
    writeFileSync(file, damaged);
    await sh('echo kept > /data/current.txt');
    const now = await contents();
    const before = (await volumeNow()).dockerName as string;
    const res = await w.admin.post(`/api/volume-backups/${b.id}/restore`, { confirm: `files-${w.tag}` });
    const r = await finished(`/api/volume-restores/${res.body.id}`);
    expect(r.status, JSON.stringify(r)).to.equal('failed');
    expect(r.error).to.match(/SHA-256|reading the backup failed|unpacking/);
    expect((await volumeNow()).dockerName).to.equal(before);
    expect(await state()).to.equal('running');
    expect(await contents()).to.equal(now);
    expect(await dockerVolumes()).to.not.include(r.newDockerName);
    await sh('rm /data/current.txt');
  });

  it('a drill restores into a scratch volume, passes its check, records it and removes the scratch volume', async () => {
    const b = await backup('s3');
    const res = await w.admin.post(`/api/volume-backups/${b.id}/drill`, { checkCommand: 'test "$(cat a.txt)" = anchor && echo files-ok' });
    expect(res.status, res.text).to.equal(202);
    const r = await finished(`/api/volume-restores/${res.body.id}`);
    expect(r, JSON.stringify(r)).to.include({ status: 'succeeded', target: 'drill', checkOutput: 'files-ok' });
    expect(await dockerVolumes()).to.not.include(r.newDockerName);
    const failing = await w.admin.post(`/api/volume-backups/${b.id}/drill`, { checkCommand: 'test -f missing.txt' });
    const f = await finished(`/api/volume-restores/${failing.body.id}`);
    expect(f.status).to.equal('failed');
    expect(f.error).to.match(/the check exited 1/);
    expect(await dockerVolumes()).to.not.include(f.newDockerName);
    const conditions = (await volumeNow()).status.conditions as Array<{ type: string; reason: string }>;
    expect(conditions.find((c) => c.type === 'DrillSucceeded')).to.include({ reason: 'DrillFailed' });
  });

  it('a scheduled drill (backup.drillSchedule) checks the newest backup in a scratch volume the scheduler removes', async () => {
    const b = await backup('local');
    const before = new Set(((await w.admin.get(`/api/volumes/${volumeId}/drills`)).body.items as Array<{ id: string }>).map((d) => d.id));
    const patched = await w.admin.patch(`/api/volumes/${volumeId}`, {
      backup: { schedule: '0 3 * * *', drillSchedule: '* * * * * *', drillCheckCommand: 'test "$(cat a.txt)" = anchor && echo scheduled-ok' },
    });
    expect(patched.status, patched.text).to.equal(200);
    let drill: any;
    try {
      // nobody asks for this drill: the scheduler's tick runs it
      drill = await until('a scheduled drill finished', async () => {
        const items = (await w.admin.get(`/api/volumes/${volumeId}/drills`)).body.items as any[];
        return items.find((d) => !before.has(d.id) && d.status !== 'running');
      }, WAIT);
    } finally {
      await w.admin.patch(`/api/volumes/${volumeId}`, { backup: null });
      await until('no drill running', async () =>
        !((await w.admin.get(`/api/volumes/${volumeId}/drills`)).body.items as any[]).some((d) => d.status === 'running'), WAIT);
    }
    expect(drill, JSON.stringify(drill)).to.include({ status: 'succeeded', target: 'drill', backupId: b.id, checkOutput: 'scheduled-ok', error: null });
    const volumes = await dockerVolumes();
    expect(volumes).to.not.include(drill.newDockerName);
    expect(volumes.filter((n) => n.includes(`files-${w.tag}-drill-`))).to.deep.equal([]);
    const conditions = (await volumeNow()).status.conditions as Array<{ type: string; status: boolean; reason: string }>;
    expect(conditions.find((c) => c.type === 'DrillSucceeded')).to.include({ status: true, reason: 'DrillSucceeded' });
  });

  it('a backup whose copy fails leaves the service running, stores nothing and says why', async () => {
    const ops = w.s.volumeOps;
    const image = ops.ctx.helperImage;
    // a helper image the server cannot get: the copy's docker run fails after the service was stopped
    ops.ctx.helperImage = `${w.fleet.registry.address}/stevedore-test/no-such-helper:none`;
    try {
      const b = await backup('local');
      expect(b.status, JSON.stringify(b)).to.equal('failed');
      expect(b.error).to.match(/the copy exited \d+: .*(no-such-helper|not found|manifest unknown)/is);
      expect(b.sha256).to.equal(null);
      expect(() => readFileSync(path.join(w.svc.stateDir, 'backups', b.objectKey))).to.throw();
    } finally {
      ops.ctx.helperImage = image;
    }
    expect(await state()).to.equal('running');
    const conditions = (await volumeNow()).status.conditions as Array<{ type: string; status: boolean; reason: string }>;
    expect(conditions.find((c) => c.type === 'Degraded')).to.include({ status: true, reason: 'BackupFailed' });
  });

  it('a volume that holds no files is not backed up: failed, the reason said', async () => {
    const vol = await w.admin.post(`/api/environments/${w.envId}/volumes`, { name: `empty-files-${w.tag}`, serverId: w.servers.s1 });
    const name = vol.body.dockerName as string;
    await serverExec('s1', ['docker', 'volume', 'create', '--label', `stevedore.volume-id=${vol.body.id}`, name]);
    const res = await w.admin.post(`/api/volumes/${vol.body.id}/backups`, { storage: 'local' });
    const b = await finished(`/api/volume-backups/${res.body.id}`);
    expect(b, JSON.stringify(b)).to.include({ status: 'failed' });
    expect(b.error).to.match(/holds no files/);
    await serverExec('s1', ['docker', 'volume', 'rm', name]);
  });
});
