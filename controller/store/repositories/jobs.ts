import type { Knex } from 'knex';
import { validationError } from '../../errors/app-error.js';
import type { ServerSelector } from '../../placement/labels.js';
import { isUuid } from './base-repository.js';
import { KindRepository, type KindRow } from './kind-repository.js';
import type { RunStatus } from './service-runs.js';

/** A scheduled job (kind Job, docs/jobs.md), as it is stored. */
export interface JobRow {
  id: string;
  environmentId: string;
  name: string;
  serviceId: string;
  command: string[];
  schedule: string;
  timeZone: string | null;
  serverId: string | null;
  serverSelector: ServerSelector | null;
  concurrencyPolicy: 'forbid' | 'replace' | 'allow';
  deadlineSec: number | null;
  historyLimit: number;
  enabled: boolean;
  /** The occurrence the scheduler waits for; null: not computed yet (new, or its schedule changed). */
  nextRunAt: Date | null;
}

/** Fields whose change makes the scheduler compute the next occurrence again. */
const RESCHEDULING = ['schedule', 'timeZone', 'enabled'];

/**
 * The Job kind's store side for the generic CRUD routes: what it names (its service, its
 * server) must be of its own environment, and a changed schedule is awaited afresh.
 */
export class JobKindRepository extends KindRepository {
  protected override columns(body: Record<string, unknown>) {
    const out = super.columns(body);
    if (RESCHEDULING.some((f) => f in body)) out.nextRunAt = null;
    return out;
  }

  protected override async check(trx: Knex.Transaction, environmentId: string, body: Record<string, unknown>) {
    if (typeof body.serviceId === 'string' && !(await trx('services').where({ id: body.serviceId, environmentId }).first('id'))) {
      throw validationError(`serviceId: no service ${body.serviceId} in this environment`, 'serviceId');
    }
    if (typeof body.serverId === 'string' && !(await trx('servers').where({ id: body.serverId, environmentId }).first('id'))) {
      throw validationError(`serverId: no server ${body.serverId} in this environment`, 'serverId');
    }
  }
}

/** A run of a job as its history shows it: the claim, and the one-off run it started if any. */
export interface JobRunView {
  id: string;
  jobId: string;
  trigger: 'schedule' | 'manual';
  scheduledAt: Date;
  /** pending (claimed, its container not started yet), the run's own status, or skipped, missed, failed (never started). */
  status: 'pending' | RunStatus | 'skipped' | 'missed';
  reason: string | null;
  runId: string | null;
  serverId: string | null;
  exitCode: number | null;
  logTail: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  durationMs: number | null;
  createdBy: string | null;
  createdAt: Date;
}

export type JobRunOutcome = 'started' | 'skipped' | 'missed' | 'failed';

export interface NewJobRun {
  jobId: string; environmentId: string; trigger: 'schedule' | 'manual'; scheduledAt: Date;
  outcome: JobRunOutcome; reason: string | null; runId?: string | null; createdBy?: string | null;
}

/** How long a claimed occurrence may wait for its container before it is failed (its controller stopped in between). */
const ABANDONED_SEC = 120;

/** The scheduler's side of jobs and their runs: due occurrences claimed once, history, pruning. */
export class JobsRepository {
  constructor(private readonly db: Knex) {}

  async findById(id: string, trx?: Knex.Transaction): Promise<JobRow | undefined> {
    if (!isUuid(id)) return undefined;
    return (trx ?? this.db)('jobs').where({ id }).first() as Promise<JobRow | undefined>;
  }

  async findByName(environmentId: string, name: string): Promise<JobRow | undefined> {
    return this.db('jobs').where({ environmentId, name }).first() as Promise<JobRow | undefined>;
  }

  /** Enabled jobs whose next occurrence is not computed yet. */
  unscheduled(): Promise<JobRow[]> {
    return this.db('jobs').where({ enabled: true }).whereNull('nextRunAt') as Promise<JobRow[]>;
  }

  /** Enabled jobs whose awaited occurrence has come. */
  due(now: Date): Promise<JobRow[]> {
    return this.db('jobs').where({ enabled: true }).where('nextRunAt', '<=', now).orderBy('nextRunAt') as Promise<JobRow[]>;
  }

  /** Sets the first occurrence of a job not scheduled yet (compare-and-set on null: one replica's value wins). */
  async schedule(id: string, next: Date): Promise<boolean> {
    return (await this.db('jobs').where({ id, enabled: true }).whereNull('nextRunAt').update({ nextRunAt: next })) === 1;
  }

  /**
   * Claims one occurrence: moves the job from the occurrence it awaited (`was`) to `next` and
   * records the run, in one transaction. False when another replica (or an earlier tick) moved
   * it first or already recorded this occurrence: nothing is written and nothing runs.
   */
  async claim(job: JobRow, was: Date, next: Date, run: NewJobRun): Promise<string | null> {
    try {
      return await this.db.transaction(async (trx) => {
        const moved = await trx('jobs').where({ id: job.id, nextRunAt: was }).update({ nextRunAt: next });
        if (moved !== 1) return null;
        const [row] = await trx('job_runs').insert({ ...run, runId: run.runId ?? null, createdBy: run.createdBy ?? null }).returning('id');
        return (row as { id: string }).id;
      });
    } catch (e) {
      // job_runs_occurrence_unique: this occurrence is recorded already (the move rolled back with it)
      if ((e as { code?: string; constraint?: string }).constraint === 'job_runs_occurrence_unique') return null;
      throw e;
    }
  }

  /** Records a run that claims no occurrence (a trigger). */
  async insertRun(run: NewJobRun): Promise<string> {
    const [row] = await this.db('job_runs').insert({ ...run, runId: run.runId ?? null, createdBy: run.createdBy ?? null }).returning('id');
    return (row as { id: string }).id;
  }

  async setRun(id: string, values: { outcome: JobRunOutcome; runId?: string | null; reason?: string | null }): Promise<void> {
    await this.db('job_runs').where({ id }).update(values);
  }

  /** The one-off runs of a job still running (their watcher renews them). */
  async activeRuns(jobId: string): Promise<Array<{ jobRunId: string; runId: string; serverId: string | null; containerName: string; scheduledAt: Date }>> {
    return this.db('job_runs as j').join('service_runs as r', 'r.id', 'j.runId').where('j.jobId', jobId).where('r.status', 'running')
      .select('j.id as jobRunId', 'r.id as runId', 'r.serverId', 'r.containerName', 'j.scheduledAt');
  }

  /** Claimed occurrences whose container never started because their controller stopped in between. */
  async failAbandoned(): Promise<number> {
    return this.db('job_runs').where({ outcome: 'started' }).whereNull('runId')
      .where('createdAt', '<', this.db.raw(`now() - make_interval(secs => ?)`, [ABANDONED_SEC]))
      .update({ outcome: 'failed', reason: 'the controller that claimed the occurrence stopped before its container started' });
  }

  /** A job's runs, newest first, with their one-off run's status, exit code, output tail and times. */
  async runsOf(jobId: string, page: { limit: number; offset: number }): Promise<{ items: JobRunView[]; total: number }> {
    const rows = await this.db('job_runs as j').leftJoin('service_runs as r', 'r.id', 'j.runId').where('j.jobId', jobId)
      .orderBy([{ column: 'j.createdAt', order: 'desc' }, { column: 'j.id', order: 'desc' }]).limit(page.limit).offset(page.offset)
      .select('j.*', 'r.status as runStatus', 'r.serverId', 'r.exitCode', 'r.logTail', 'r.startedAt', 'r.finishedAt', 'r.reason as runReason',
        this.db.raw('count(*) over () as full_count'));
    const total = rows.length ? Number(rows[0].fullCount)
      : Number((await this.db('job_runs').where({ jobId }).count({ c: '*' }))[0].c);
    return { items: rows.map(toView), total };
  }

  /**
   * Keeps a job's newest `limit` runs: older ones go, with their one-off run rows (their
   * containers were removed when they ended). A run still running is never pruned.
   */
  async prune(jobId: string, limit: number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const all = await trx('job_runs as j').leftJoin('service_runs as r', 'r.id', 'j.runId').where('j.jobId', jobId)
        .orderBy([{ column: 'j.createdAt', order: 'desc' }, { column: 'j.id', order: 'desc' }])
        .select('j.id', 'j.runId', 'j.outcome', 'r.status') as Array<{ id: string; runId: string | null; outcome: string; status: string | null }>;
      const old = all.slice(limit).filter((o) => o.status !== 'running' && !(o.outcome === 'started' && !o.runId));
      if (!old.length) return 0;
      await trx('job_runs').whereIn('id', old.map((o) => o.id)).delete();
      const runIds = old.map((o) => o.runId).filter((x): x is string => !!x);
      if (runIds.length) await trx('service_runs').whereIn('id', runIds).delete();
      return old.length;
    });
  }
}

function toView(r: Record<string, any>): JobRunView {
  const status: JobRunView['status'] = r.outcome === 'started' ? (r.runId ? r.runStatus : 'pending') : r.outcome;
  const finishedAt: Date | null = r.finishedAt ?? null;
  return {
    id: r.id, jobId: r.jobId, trigger: r.trigger, scheduledAt: r.scheduledAt, status,
    reason: r.runReason ?? r.reason ?? null, runId: r.runId ?? null, serverId: r.serverId ?? null,
    exitCode: r.exitCode ?? null, logTail: r.logTail ?? '', startedAt: r.startedAt ?? null, finishedAt,
    durationMs: finishedAt && r.startedAt ? new Date(finishedAt).getTime() - new Date(r.startedAt).getTime() : null,
    createdBy: r.createdBy ?? null, createdAt: r.createdAt,
  };
}

export type { KindRow };
