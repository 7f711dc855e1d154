// Backups, restores, drills and rotation of databases, with the runs in flight tracked so a
// shutdown waits for them, and the scheduler's tick that starts due backups and drills once.
import type { BackupRow, RestoreRow } from '../store/repositories/backups.js';
import type { DatabaseRow, ScheduleKind } from '../store/repositories/databases.js';
import { startBackup, type BackupRequest } from './backup-run.js';
import { credentialsOf, placeOf, reasonOf, typeCommand, type DatabaseContext } from './context.js';
import { claimIfDue } from './cron-schedule.js';
import { tendLeases } from './lease.js';
import { monitorDatabase } from './monitor.js';
import type { MonitoringResult } from './monitoring-result.js';
import { startRestore, type RestoreTarget } from './restore-run.js';
import { rotationPlan } from './retention.js';

export class DatabaseOps {
  private readonly inFlight = new Set<Promise<unknown>>();
  private leaseTimer: NodeJS.Timeout | null = null;

  constructor(readonly ctx: DatabaseContext) {}

  /** Fails the runs a stopped process left (lease ran out), then renews and sweeps three times per lease. */
  async startLeases(leaseMs: number): Promise<void> {
    const tend = () => tendLeases(this.ctx, leaseMs).catch((err: Error) => {
      this.ctx.logger.warn('backup leases not renewed', { error: err.message });
      return 0;
    });
    await tend();
    this.leaseTimer = setInterval(() => void tend(), Math.max(100, Math.floor(leaseMs / 3)));
    this.leaseTimer.unref();
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p)).catch(() => undefined);
    return p;
  }

  /** Starts a backup; the row is `running` until `done` settles. */
  async backup(db: DatabaseRow, req: BackupRequest): Promise<{ row: BackupRow; done: Promise<BackupRow> }> {
    const started = await startBackup(this.ctx, db, req);
    return { row: started.row, done: this.track(started.done) };
  }

  async restore(db: DatabaseRow, backup: BackupRow, target: RestoreTarget): Promise<{ row: RestoreRow; done: Promise<RestoreRow> }> {
    const started = await startRestore(this.ctx, db, backup, target);
    return { row: started.row, done: this.track(started.done) };
  }

  /** Restores the latest succeeded backup into a scratch container and checks it; null when there is none. */
  async drill(db: DatabaseRow): Promise<{ row: RestoreRow; done: Promise<RestoreRow> } | null> {
    const latest = await this.ctx.backups.latestSucceeded(db.id);
    if (!latest) {
      await this.ctx.databases.setCondition(db.id, { type: 'DrillSucceeded', status: false, reason: 'NoBackup', message: 'there is no succeeded backup to restore' });
      return null;
    }
    return this.restore(db, latest, 'drill');
  }

  /** What rotation would delete now. */
  async rotationPreview(db: DatabaseRow): Promise<BackupRow[]> {
    return rotationPlan(await this.ctx.backups.finishedOf(db.id), { keepLast: db.keepLast, keepDays: db.keepDays });
  }

  /** Deletes what the preview names: the stored object first, then the row. */
  async rotate(db: DatabaseRow): Promise<BackupRow[]> {
    const doomed = await this.rotationPreview(db);
    for (const b of doomed) await this.deleteBackup(b);
    return doomed;
  }

  async deleteBackup(b: BackupRow): Promise<void> {
    if (b.status === 'succeeded' || b.status === 'failed') {
      const store = await this.ctx.stores.of(b);
      await store.remove(b.objectKey);
    }
    await this.ctx.backups.delete(b.id);
  }

  /** Whether the database answers: its type's check inside the container, or a TCP connect to host:port. */
  async test(db: DatabaseRow): Promise<{ ok: boolean; message: string; durationMs: number }> {
    const started = Date.now();
    const result = (ok: boolean, message: string) => ({ ok, message, durationMs: Date.now() - started });
    if (db.serverId && db.containerName) {
      const argv = await typeCommand(this.ctx, db.type, 'check', { container: db.containerName, database: db.databaseName, creds: credentialsOf(this.ctx, db) });
      try {
        const r = await this.ctx.hosts.exec(db.serverId, argv, { check: false, timeoutMs: 30_000 });
        return r.code === 0 ? result(true, 'the database answered') : result(false, reasonOf(r.stderr, `exited ${r.code}`));
      } catch (err) {
        return result(false, (err as Error).message);
      }
    }
    if (!db.host || !db.port) return result(false, 'the database has neither a server and container nor a host and port');
    try {
      (await this.ctx.outgoing.connect(db.host, db.port, 5000)).destroy();
      return result(true, `${db.host}:${db.port} accepts connections`);
    } catch (e) {
      const err = e as Error;
      return result(false, err.name === 'TimeoutError' ? `${db.host}:${db.port} did not answer within 5 s` : `${db.host}:${db.port}: ${err.message}`);
    }
  }

  /** Probes the database now (reachability and size) and records the result in its status. */
  monitor(db: DatabaseRow): Promise<MonitoringResult> {
    return this.track(monitorDatabase(this.ctx, db, (d) => this.test(d)));
  }

  /**
   * One scheduler tick: every due backup (then rotation), drill and monitoring probe starts once. The schedule's
   * next time is moved with a compare-and-set before the run starts, so replicas and restarts
   * never run one occurrence twice; a time missed while the controller was down runs once.
   */
  async tick(now = new Date()): Promise<void> {
    for (const db of await this.ctx.databases.due('monitor', now)) {
      const next = new Date(now.getTime() + db.collectionIntervalSec * 1000);
      if (!(await this.ctx.databases.claimDue(db.id, 'monitor', db.nextMonitorAt, next))) continue;
      void this.monitor(db).catch((err: Error) => this.ctx.logger.warn('database probe failed', { databaseId: db.id, error: err.message }));
    }
    for (const kind of ['backup', 'drill'] as const) {
      // a new schedule (set by a manifest) gets its next time; a due one is claimed and run
      for (const db of [...await this.ctx.databases.unscheduled(kind), ...await this.ctx.databases.due(kind, now)]) {
        const cron = kind === 'backup' ? db.backupCron : db.drillCron;
        const nextAt = kind === 'backup' ? db.nextBackupAt : db.nextDrillAt;
        if (cron && await claimIfDue(cron, db.timezone, nextAt, now, (was, next) => this.ctx.databases.claimDue(db.id, kind, was, next))) {
          void this.track(this.scheduled(db, kind));
        }
      }
    }
  }

  private async scheduled(db: DatabaseRow, kind: ScheduleKind): Promise<void> {
    try {
      placeOf(db);
      if (kind === 'drill') {
        await (await this.drill(db))?.done;
        return;
      }
      const { done } = await this.backup(db, { trigger: 'schedule' });
      if ((await done).status === 'succeeded') await this.rotate((await this.ctx.databases.findById(db.id)) ?? db);
    } catch (err) {
      this.ctx.logger.warn(`scheduled ${kind} did not start`, { databaseId: db.id, error: (err as Error).message });
      await this.ctx.events.publish('backup.failed', db.environmentId, {
        databaseId: db.id, databaseName: db.name, message: `Scheduled ${kind} of ${db.name} did not start: ${(err as Error).message}`.slice(0, 1000),
      }).catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    // leases are renewed until the runs end: a run still going is not another replica's to fail
    await Promise.allSettled([...this.inFlight]);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    this.ctx.stores.close();
  }
}
