import type { Knex } from 'knex';
import { isUuid } from './base-repository.js';

export type RunStatus = 'running' | 'succeeded' | 'failed';

/** One one-off run of a service (docs/exec.md#one-off-runs), as it is stored. */
export interface ServiceRunRow {
  id: string;
  serviceId: string;
  environmentId: string;
  deploymentId: string | null;
  serverId: string | null;
  containerName: string;
  command: string[];
  status: RunStatus;
  exitCode: number | null;
  /** The last bytes of stdout and stderr together (bounded by the runner). */
  logTail: string;
  /** Why a failed run failed when it is not its exit code (could not start, controller gone). */
  reason: string | null;
  createdBy: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  heartbeatAt: Date;
}

export type NewServiceRun = Pick<ServiceRunRow, 'serviceId' | 'environmentId' | 'deploymentId' | 'serverId' | 'containerName' | 'command' | 'createdBy'> & { id: string };

/** How long a `running` run may go without its watcher's heartbeat before it is failed (the watcher renews it every few seconds). */
export const RUN_HEARTBEAT_STALE_SEC = 30;

/** The service_runs table: a row per run, written by its watcher, ended once. */
export class ServiceRunsRepository {
  constructor(private readonly db: Knex) {}

  async insert(row: NewServiceRun, trx?: Knex.Transaction): Promise<ServiceRunRow> {
    const [out] = await (trx ?? this.db)('service_runs').insert({ ...row, command: JSON.stringify(row.command) }).returning('*');
    return out as ServiceRunRow;
  }

  async findById(id: string, trx?: Knex.Transaction): Promise<ServiceRunRow | undefined> {
    if (!isUuid(id)) return undefined;
    return (trx ?? this.db)('service_runs').where({ id }).first() as Promise<ServiceRunRow | undefined>;
  }

  async heartbeat(id: string): Promise<void> {
    await this.db('service_runs').where({ id, status: 'running' }).update({ heartbeatAt: this.db.fn.now() });
  }

  /** Ends a run that is still running (once: a run already ended is left as it is). */
  async finish(id: string, end: { status: Exclude<RunStatus, 'running'>; exitCode: number | null; logTail: string; reason: string | null }): Promise<boolean> {
    const n = await this.db('service_runs').where({ id, status: 'running' })
      .update({ ...end, finishedAt: this.db.fn.now() });
    return n > 0;
  }

  /**
   * Fails every run still `running` whose watcher stopped renewing its heartbeat (its controller
   * died or restarted): nobody watches it any more, so it is not said to run.
   */
  async failStale(staleSec = RUN_HEARTBEAT_STALE_SEC, ids?: string[]): Promise<number> {
    const q = this.db('service_runs').where({ status: 'running' })
      .where('heartbeatAt', '<', this.db.raw(`now() - make_interval(secs => ?)`, [staleSec]));
    if (ids) q.whereIn('id', ids);
    return q.update({
      status: 'failed', finishedAt: this.db.fn.now(),
      reason: 'the controller watching the run stopped (restarted or died) before it ended; its container may need removing by hand',
    });
  }
}
