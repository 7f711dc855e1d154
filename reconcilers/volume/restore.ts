// A restore of a volume (docs/volumes.md#restore): the backup is unpacked into a NEW Docker volume
// while the service still runs on the old one; then the volume is swapped to the new one and the
// containers that mount it are recreated through a plan (stopped, created on the new volume). The
// old volume is kept until that plan succeeded, then removed (the restore was confirmed by the
// volume's name). Anything failing on the way keeps the old data: a failed unpack removes the new
// volume and touches nothing else; a failed plan swaps back and recreates the containers on the old.
import { conflict } from '../../controller/errors/app-error.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { mountsOf } from '../../controller/model/volume-mount.js';
import type { Services } from '../../controller/services.js';
import { dockerNameOf, type VolumeBackupRow, type VolumeRestoreRow, type VolumeRow } from '../../controller/store/repositories/volumes.js';
import { requestConvergence } from '../entrance.js';

export async function startVolumeRestore(s: Services, v: VolumeRow, b: VolumeBackupRow, createdBy: string | null)
  : Promise<{ row: VolumeRestoreRow; done: Promise<VolumeRestoreRow> }> {
  if (b.status !== 'succeeded') throw conflict(`Backup ${b.id} is ${b.status}`, 'Only a succeeded backup can be restored');
  const ops = s.volumeOps;
  const previous = dockerNameOf(v);
  const fresh = ops.newDockerName(v, 'restore');
  const row = await ops.ctx.restores.insert({
    volumeId: v.id, environmentId: v.environmentId, backupId: b.id, target: 'volume', status: 'running', owner: ops.ctx.owner,
    newDockerName: fresh, previousDockerName: previous,
  });
  const started = Date.now();
  const done = (async (): Promise<VolumeRestoreRow> => {
    try {
      await ops.fill(v, b, fresh);
      await swapAndRecreate(s, v, previous, fresh, createdBy);
      await ops.removeDockerVolume(v, previous);
      return (await ops.ctx.restores.update(row.id, { status: 'succeeded', durationMs: Date.now() - started, finishedAt: new Date() }))!;
    } catch (err) {
      return (await ops.ctx.restores.update(row.id, { status: 'failed', error: messageOf(err).slice(0, 2000), durationMs: Date.now() - started, finishedAt: new Date() }))!;
    }
  })().then(async (r) => { await ops.announceRestore(v, r); return r; });
  return { row, done: ops.track(done) };
}

/** The services of the volume's environment that mount it. */
async function mountingServices(s: Services, v: VolumeRow) {
  return (await s.services.listByEnvironment(v.environmentId)).filter((svc) => mountsOf(svc.volumes).some((m) => m.volume === v.name));
}

/** Converges the services that mount the volume (their containers recreated on what it names now); throws unless the plan succeeded. */
async function recreate(s: Services, v: VolumeRow, name: string, createdBy: string | null): Promise<void> {
  const services = await mountingServices(s, v);
  if (!services.length) return;
  const plan = await requestConvergence(s, {
    environmentId: v.environmentId, trigger: 'volume-restore', name, createdBy, wait: true,
    items: services.map((svc) => ({ serviceId: svc.id })),
  });
  if (plan && plan.status !== 'succeeded') throw new Error(`the plan ${plan.id} that recreates the containers ended ${plan.status}${plan.error ? `: ${plan.error}` : ''}`);
}

async function swapAndRecreate(s: Services, v: VolumeRow, previous: string, fresh: string, createdBy: string | null): Promise<void> {
  const ops = s.volumeOps;
  if (!(await s.volumes.swapDockerName(v.id, v.dockerName, fresh))) {
    await ops.removeDockerVolume(v, fresh);
    throw conflict(`The volume ${v.name} was swapped by another restore meanwhile`, 'Nothing was changed by this one');
  }
  try {
    await recreate(s, v, `restore volume ${v.name}`, createdBy);
  } catch (err) {
    // the old data stays the volume's: swapped back, containers recreated on it, the new one removed
    await s.volumes.swapDockerName(v.id, fresh, previous);
    try {
      await recreate(s, v, `restore volume ${v.name} failed: back on ${previous}`, createdBy);
    } catch (back) {
      s.logger.error('containers not recreated on the volume a failed restore swapped back to', { volumeId: v.id, error: messageOf(back) });
    }
    await ops.removeDockerVolume(v, fresh);
    throw new Error(`${messageOf(err)}; the volume is back on ${previous}, its data unchanged`);
  }
}
