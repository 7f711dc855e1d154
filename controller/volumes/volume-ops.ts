// Backups, restores into a new volume, drills and rotation of managed volumes (docs/volumes.md),
// on the database backups' store, schedules, retention, leases and events (controller/databases/):
// a volume's copy is a tar stream from a helper container on its server, over the pooled SSH
// connection, through gzip and SHA-256 into the store and verified there (storage/verified-put.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { GZIP_OPTIONS } from '../databases/backup-run.js';
import { reasonOf } from '../databases/context.js';
import { claimIfDue } from '../databases/cron-schedule.js';
import { rotationPlan } from '../databases/retention.js';
import { meter } from '../databases/storage/digest-stream.js';
import type { BackupStores } from '../databases/storage/stores.js';
import { putVerified } from '../databases/storage/verified-put.js';
import { streamVerifiedInto } from '../databases/storage/verified-get.js';
import { execAllowed } from '../auth/exec-allowed.js';
import { conflict } from '../errors/app-error.js';
import type { EventBus } from '../events/event-bus.js';
import { dockerExec } from '../hosts/commands/database.js';
import { rm, start, stop } from '../hosts/commands/docker.js';
import { checkIn, containersUsing, tarIn, tarOut, volumeCreate, volumeInspect, volumeRm } from '../hosts/commands/volume.js';
import type { HostAccess } from '../hosts/host-access.js';
import type { Logger } from '../logger.js';
import { LABEL } from '../model/desired-container.js';
import { dockerVolumeName, VOLUME_LABEL } from '../model/volume-mount.js';
import {
  dockerNameOf, type VolumeBackupRow, type VolumeBackupsRepository, type VolumeRestoreRow, type VolumeRestoresRepository, type VolumeRow,
  type VolumesRepository,
} from '../store/repositories/volumes.js';
import { tarEntries } from './tar-entries.js';

export interface VolumeContext {
  volumes: VolumesRepository;
  backups: VolumeBackupsRepository;
  restores: VolumeRestoresRepository;
  hosts: HostAccess;
  /** The database backups' stores: one folder, one object storage configuration. */
  stores: BackupStores;
  events: EventBus;
  logger: Logger;
  /** The environment's operations settings: a pre-backup command is an exec, refused while allowExec is off. */
  settings: { get<T>(environmentId: string, module: string): Promise<T> };
  /** VOLUME_HELPER_IMAGE: tar and sh, run next to the volume. */
  helperImage: string;
  owner: string;
}

const helperName = () => `stevedore-volume-helper-${randomBytes(5).toString('hex')}`;

export const ABANDONED = 'the controller running it stopped (its lease ran out): nothing will finish it';
const COMMAND_TIMEOUT_MS = 300_000;

/** The containers of the server that mount the volume, and which of them run. */
export async function usersOf(ctx: VolumeContext, v: VolumeRow, dockerName = dockerNameOf(v)): Promise<Array<{ name: string; running: boolean }>> {
  const out = await ctx.hosts.exec(v.serverId, containersUsing(dockerName));
  // our own helpers (a copy, a size) are not the volume's users
  return out.stdout.split('\n').map((l) => l.trim().split(' ')).filter(([name, , helper]) => name && !helper).map(([name, state]) => ({ name, running: state === 'running' }));
}

/** The labels Stevedore puts on a managed Docker volume: whose it is (the volume's own labels first). */
export function volumeLabels(environmentId: string, volumeId: string, own: Record<string, string> = {}): Record<string, string> {
  return { ...own, [LABEL.managed]: 'true', [LABEL.environment]: environmentId, [VOLUME_LABEL]: volumeId };
}

/** Creates a Docker volume with the ownership labels (and the volume's own). */
export async function createDockerVolume(ctx: Pick<VolumeContext, 'hosts'>, v: VolumeRow, dockerName: string): Promise<void> {
  await ctx.hosts.exec(v.serverId, volumeCreate(dockerName, { driver: v.driver, labels: volumeLabels(v.environmentId, v.id, v.labels) }));
}

export class VolumeOps {
  private readonly inFlight = new Set<Promise<unknown>>();
  private leaseTimer: NodeJS.Timeout | null = null;

  constructor(readonly ctx: VolumeContext) {}

  /** Tracks a run so a shutdown waits for it (the restore the reconciler drives, too). */
  track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  // ---- backups ---------------------------------------------------------------------------

  /** Inserts the running row; `done` settles with the finished one (never rejects). */
  async backup(v: VolumeRow, req: { trigger: VolumeBackupRow['trigger']; storage?: 'local' | 's3' }): Promise<{ row: VolumeBackupRow; done: Promise<VolumeBackupRow> }> {
    // one copy of a volume at a time: a second would stop the service again, or copy a stopped copy's helper
    const running = await this.ctx.backups.findOne({ volumeId: v.id, status: 'running' });
    if (running) throw conflict(`A backup of volume ${v.name} is running (${running.id})`, 'Wait for it to finish');
    const { store, prefix } = await this.ctx.stores.forNew(v.environmentId, req.storage);
    const id = randomUUID();
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const row = await this.ctx.backups.insert({
      id, volumeId: v.id, environmentId: v.environmentId, status: 'running', trigger: req.trigger, consistency: v.backup?.consistency ?? 'stop',
      storage: store.kind, bucket: store.bucket, objectKey: `${prefix}volumes/${v.environmentId}/${v.id}/${stamp}-${id}.tar.gz`, owner: this.ctx.owner,
    });
    const done = this.copy(v, row).then((written) => ({ ...written }), (err: Error) => ({ error: err.message }))
      .then((outcome) => this.finishBackup(v, row, outcome));
    return { row, done: this.track(done) };
  }

  /** The consistent copy: prepared per `consistency`, the service ALWAYS started again after it. */
  private async copy(v: VolumeRow, row: VolumeBackupRow): Promise<{ sha256: string; size: number; tarBytes: number }> {
    const store = await this.ctx.stores.of(row);
    // docker run would create a missing volume, empty: there is nothing to copy
    const seen = await this.ctx.hosts.exec(v.serverId, volumeInspect(dockerNameOf(v)), { check: false });
    if (seen.code !== 0) throw new Error(`the Docker volume ${dockerNameOf(v)} is not on the server (${reasonOf(seen.stderr, `exit ${seen.code}`)}): nothing was copied`);
    const users = await usersOf(this.ctx, v);
    const running = users.filter((u) => u.running).map((u) => u.name);
    const stopped: string[] = [];
    try {
      if (row.consistency === 'stop') {
        for (const name of running) {
          await this.ctx.hosts.exec(v.serverId, stop(name), { timeoutMs: COMMAND_TIMEOUT_MS });
          stopped.push(name);
        }
      } else if (row.consistency === 'command' && running.length) {
        // a command in the service's container is what exec is: the environment's switch holds here too
        if (!(await execAllowed(this.ctx, v.environmentId))) throw new Error(`the pre-backup command runs in ${running[0]}, and operations.allowExec is off in this environment: nothing was copied`);
        const argv = v.backup?.command ?? [];
        const r = await this.ctx.hosts.exec(v.serverId, dockerExec({ container: running[0], argv }), { check: false, timeoutMs: COMMAND_TIMEOUT_MS });
        if (r.code !== 0) throw new Error(`the pre-backup command exited ${r.code} in ${running[0]}: ${reasonOf(r.stderr, 'no error output')}; nothing was copied`);
      }
      return await this.stream(v, row, store);
    } finally {
      // whatever happened to the copy, what was running runs again
      const problems: string[] = [];
      for (const name of stopped) {
        const r = await this.ctx.hosts.exec(v.serverId, start(name), { check: false, timeoutMs: COMMAND_TIMEOUT_MS }).catch((e: Error) => ({ code: -1, stderr: e.message }));
        if (r.code !== 0) problems.push(`${name}: ${reasonOf(r.stderr, `exit ${r.code}`)}`);
      }
      if (problems.length) this.ctx.logger.error('containers stopped for a volume backup did not start again', { volumeId: v.id, problems });
    }
  }

  private async stream(v: VolumeRow, row: VolumeBackupRow, store: Awaited<ReturnType<BackupStores['of']>>) {
    const helper = helperName();
    const exec = await this.ctx.hosts.stream(v.serverId, tarOut(this.ctx.helperImage, dockerNameOf(v), helper));
    exec.stdin.end();
    const tar = meter();
    const entries = tarEntries();
    let stored: { sha256: string; size: number };
    try {
      stored = await putVerified(store, row.objectKey, exec.stdout as Readable, [tar.stream, entries.stream, createGzip(GZIP_OPTIONS)], "the volume's copy");
    } catch (err) {
      exec.kill();
      await exec.exit;
      await this.removeHelper(v, helper);
      throw err;
    }
    const exit = await exec.exit;
    const fail = async (message: string) => {
      // a partial or empty copy must not be restorable
      await store.remove(row.objectKey).catch(() => undefined);
      throw new Error(message);
    };
    if (exit.code !== 0) {
      const how = exit.code === null ? `was killed (${exit.signal ?? 'no exit status'})` : `exited ${exit.code}`;
      return fail(`the copy ${how}: ${reasonOf(exit.stderr, 'no error output')}`);
    }
    if (tar.size() === 0) return fail('the copy produced no bytes: nothing was copied');
    if (entries.entries() === 0) return fail(`the volume ${dockerNameOf(v)} holds no files: an empty copy is not a backup`);
    return { ...stored, tarBytes: tar.size() };
  }

  private async finishBackup(v: VolumeRow, row: VolumeBackupRow, outcome: { error: string } | { sha256: string; size: number; tarBytes: number }) {
    const failed = 'error' in outcome;
    const updated = (await this.ctx.backups.update(row.id, failed
      ? { status: 'failed', error: outcome.error.slice(0, 2000), finishedAt: new Date() }
      : { status: 'succeeded', sha256: outcome.sha256, sizeBytes: outcome.size, tarBytes: outcome.tarBytes, finishedAt: new Date() }))!;
    await this.announceBackup(v, updated);
    return updated;
  }

  /** The Degraded condition of the volume and the backup.success/failed event (the database backups' names). */
  async announceBackup(v: VolumeRow, b: VolumeBackupRow): Promise<void> {
    const ok = b.status === 'succeeded';
    await this.ctx.volumes.setCondition(v.id, ok
      ? { type: 'Degraded', status: false, reason: 'BackupSucceeded', message: `backup ${b.id} verified` }
      : { type: 'Degraded', status: true, reason: 'BackupFailed', message: b.error ?? 'failed' });
    const data = { volumeId: v.id, volumeName: v.name, backupId: b.id, trigger: b.trigger, storage: b.storage };
    await this.ctx.events.publish(ok ? 'backup.success' : 'backup.failed', v.environmentId, ok
      ? { ...data, sizeBytes: Number(b.sizeBytes), sha256: b.sha256 }
      : { ...data, message: `Backup of volume ${v.name} failed: ${b.error}`.slice(0, 1000) })
      .catch((err: Error) => this.ctx.logger.warn('volume backup event not published', { error: err.message }));
    if (!ok) this.ctx.logger.warn('volume backup failed', { volumeId: v.id, backupId: b.id, error: b.error });
  }

  // ---- restores and drills ---------------------------------------------------------------

  /**
   * Unpacks a backup into a new, empty Docker volume on the volume's server, checking the bytes
   * read against the recorded SHA-256 on the way; the new volume is removed when anything fails.
   */
  async fill(v: VolumeRow, b: VolumeBackupRow, dockerName: string): Promise<void> {
    const store = await this.ctx.stores.of(b);
    const source = await store.get(b.objectKey);
    await createDockerVolume(this.ctx, v, dockerName);
    const helper = helperName();
    try {
      await streamVerifiedInto(this.ctx.hosts, v.serverId, tarIn(this.ctx.helperImage, dockerName, helper), source as Readable, [createGunzip()], b.sha256, 'unpacking');
    } catch (err) {
      // the helper may outlive its killed client for a moment: it goes first, then the volume it holds
      await this.removeHelper(v, helper);
      await this.removeDockerVolume(v, dockerName);
      throw err;
    }
  }

  private async removeHelper(v: VolumeRow, container: string): Promise<void> {
    await this.ctx.hosts.exec(v.serverId, rm(container, { force: true }), { check: false }).catch(() => undefined);
  }

  /** Removes a Docker volume; while a helper that held it is still being removed by Docker (`--rm`), asks again for up to 15 s. */
  async removeDockerVolume(v: VolumeRow, dockerName: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await this.ctx.hosts.exec(v.serverId, volumeRm(dockerName), { check: false });
      if (r.code === 0 || /no such volume/i.test(r.stderr)) return;
      if (!/in use/i.test(r.stderr) || Date.now() > deadline) {
        this.ctx.logger.warn('a volume was not removed', { volumeId: v.id, dockerName, error: r.stderr.trim().slice(-300) });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** A new Docker name for a restore's or drill's volume (the old one stays until it succeeded). */
  newDockerName(v: VolumeRow, purpose: 'restore' | 'drill'): string {
    return dockerVolumeName(v.environmentId, v.name, `${purpose}-${randomBytes(4).toString('hex')}`);
  }

  /** Restores the backup into a scratch volume, runs the check there, and removes the scratch volume. */
  async drill(v: VolumeRow, b: VolumeBackupRow, checkCommand: string | null): Promise<{ row: VolumeRestoreRow; done: Promise<VolumeRestoreRow> }> {
    if (b.status !== 'succeeded') throw conflict(`Backup ${b.id} is ${b.status}`, 'Only a succeeded backup can be restored');
    const row = await this.ctx.restores.insert({ volumeId: v.id, environmentId: v.environmentId, backupId: b.id, target: 'drill', status: 'running', owner: this.ctx.owner });
    const started = Date.now();
    const scratch = this.newDockerName(v, 'drill');
    const done = (async (): Promise<VolumeRestoreRow> => {
      const fields: Partial<VolumeRestoreRow> = { newDockerName: scratch };
      try {
        await this.fill(v, b, scratch);
        try {
          const r = await this.ctx.hosts.exec(v.serverId, checkIn(this.ctx.helperImage, scratch, checkCommand ?? 'test -n "$(ls -A .)"'), { check: false, timeoutMs: COMMAND_TIMEOUT_MS });
          fields.checkOutput = `${r.stdout}${r.stderr}`.trim().slice(-2000);
          if (r.code !== 0) throw new Error(`the check exited ${r.code}: ${reasonOf(`${r.stdout}\n${r.stderr}`, 'no output')}`);
        } finally {
          await this.removeDockerVolume(v, scratch);
        }
        return (await this.ctx.restores.update(row.id, { ...fields, status: 'succeeded', durationMs: Date.now() - started, finishedAt: new Date() }))!;
      } catch (err) {
        return (await this.ctx.restores.update(row.id, { ...fields, status: 'failed', error: (err as Error).message.slice(0, 2000), durationMs: Date.now() - started, finishedAt: new Date() }))!;
      }
    })().then(async (r) => { await this.announceRestore(v, r); return r; });
    return { row, done: this.track(done) };
  }

  /** A drill's result is a condition of the volume; a failed drill or restore also notifies. */
  async announceRestore(v: VolumeRow, r: VolumeRestoreRow): Promise<void> {
    const ok = r.status === 'succeeded';
    if (r.target === 'drill') {
      await this.ctx.volumes.setCondition(v.id, ok
        ? { type: 'DrillSucceeded', status: true, reason: 'DrillSucceeded', message: `backup ${r.backupId} restored and checked in ${r.durationMs} ms` }
        : { type: 'DrillSucceeded', status: false, reason: 'DrillFailed', message: r.error ?? 'failed' });
    }
    if (!ok) {
      await this.ctx.events.publish(r.target === 'drill' ? 'backup.drill_failed' : 'backup.restore_failed', v.environmentId, {
        volumeId: v.id, volumeName: v.name, backupId: r.backupId, restoreId: r.id,
        message: `${r.target === 'drill' ? 'Restore drill' : 'Restore'} of volume ${v.name} failed: ${r.error}`.slice(0, 1000),
      }).catch((err: Error) => this.ctx.logger.warn('volume restore event not published', { error: err.message }));
    }
  }

  // ---- retention, schedules, leases ------------------------------------------------------

  async rotate(v: VolumeRow): Promise<VolumeBackupRow[]> {
    const doomed = rotationPlan(await this.ctx.backups.finishedOf(v.id), { keepLast: v.backup?.keepLast ?? null, keepDays: null });
    for (const b of doomed) await this.deleteBackup(b);
    return doomed;
  }

  async deleteBackup(b: VolumeBackupRow): Promise<void> {
    if (b.status !== 'running') await (await this.ctx.stores.of(b)).remove(b.objectKey);
    await this.ctx.backups.delete(b.id);
  }

  /**
   * Starts the backups and drills that are due, each claimed once across replicas (a compare-and-set
   * on next_backup_at / next_drill_at, as databases' schedules are).
   */
  async tick(now = new Date()): Promise<void> {
    for (const v of await this.ctx.volumes.scheduled()) {
      const b = v.backup!;
      if (await claimIfDue(b.schedule, null, v.nextBackupAt, now, (was, next) => this.ctx.volumes.claimDue(v.id, 'backup', was, next))) {
        // a copy still running is this time's backup too
        if (!(await this.ctx.backups.findOne({ volumeId: v.id, status: 'running' }))) void this.track(this.scheduled(v));
      }
      if (b.drillSchedule && await claimIfDue(b.drillSchedule, null, v.nextDrillAt, now, (was, next) => this.ctx.volumes.claimDue(v.id, 'drill', was, next))) {
        void this.track(this.scheduledDrill(v));
      }
    }
  }

  private async scheduled(v: VolumeRow): Promise<void> {
    try {
      const { done } = await this.backup(v, { trigger: 'schedule' });
      if ((await done).status === 'succeeded') await this.rotate((await this.ctx.volumes.findById(v.id)) ?? v);
    } catch (err) {
      this.ctx.logger.warn('scheduled volume backup did not start', { volumeId: v.id, error: (err as Error).message });
      await this.ctx.events.publish('backup.failed', v.environmentId, {
        volumeId: v.id, volumeName: v.name, message: `Scheduled backup of volume ${v.name} did not start: ${(err as Error).message}`.slice(0, 1000),
      }).catch(() => undefined);
    }
  }

  /**
   * A scheduled drill of the newest succeeded backup with backup.drillCheckCommand. A drill that
   * cannot run (no succeeded backup, the check command while exec is off) is recorded failed with
   * the reason, and announced as a failed drill is: never green.
   */
  async scheduledDrill(v: VolumeRow): Promise<VolumeRestoreRow> {
    const checkCommand = v.backup?.drillCheckCommand ?? null;
    const latest = await this.ctx.backups.latestSucceeded(v.id);
    let reason: string | null = null;
    if (!latest) reason = `there is no succeeded backup of volume ${v.name} to drill`;
    // a check command is a command run over the volume's data: the switch the on-request drill obeys
    else if (checkCommand && !(await execAllowed(this.ctx, v.environmentId))) reason = 'the drill check command runs over the volume\'s data, and operations.allowExec is off in this environment: nothing was restored';
    if (latest && !reason) return (await this.drill(v, latest, checkCommand)).done;
    const row = await this.ctx.restores.insert({
      volumeId: v.id, environmentId: v.environmentId, backupId: latest?.id ?? null, target: 'drill', status: 'failed', error: reason, durationMs: 0, finishedAt: new Date(),
    });
    await this.announceRestore(v, row);
    return row;
  }

  /** Renews this replica's leases and fails the runs whose lease ran out (another replica died), three times per lease. */
  async startLeases(leaseMs: number): Promise<void> {
    const tend = async () => {
      await this.ctx.backups.renewLeases(this.ctx.owner);
      await this.ctx.restores.renewLeases(this.ctx.owner);
      for (const b of await this.ctx.backups.failExpired(leaseMs, ABANDONED)) {
        await (await this.ctx.stores.of(b)).remove(b.objectKey).catch(() => undefined);
        const v = await this.ctx.volumes.findById(b.volumeId);
        if (v) await this.announceBackup(v, b);
      }
      for (const r of await this.ctx.restores.failExpired(leaseMs, ABANDONED)) {
        const v = await this.ctx.volumes.findById(r.volumeId);
        if (v) await this.announceRestore(v, r);
      }
    };
    await tend().catch((err: Error) => this.ctx.logger.warn('volume backup leases not renewed', { error: err.message }));
    this.leaseTimer = setInterval(() => void tend().catch((err: Error) => this.ctx.logger.warn('volume backup leases not renewed', { error: err.message })), Math.max(100, Math.floor(leaseMs / 3)));
    this.leaseTimer.unref();
  }

  async stop(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
  }
}
