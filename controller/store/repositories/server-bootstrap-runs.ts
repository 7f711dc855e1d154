import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export type BootstrapStatus = 'running' | 'succeeded' | 'failed';
export type StepStatus = 'running' | 'succeeded' | 'failed' | 'skipped';

export interface BootstrapStep {
  name: string;
  status: StepStatus;
  message: string;
  /** The commands the step ran, as argv. */
  commands: string[][];
  /** The end of their output (stdout and stderr), for a failed or informative step. */
  output: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface BootstrapRunRow {
  id: string;
  serverId: string;
  status: BootstrapStatus;
  distribution: Record<string, unknown> | null;
  steps: BootstrapStep[];
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** server_bootstrap_runs: one row per bootstrap of a server, its steps written as they happen. */
export class ServerBootstrapRunsRepository extends BaseRepository<BootstrapRunRow> {
  constructor(db: Knex) {
    super(db, 'server_bootstrap_runs', { server_bootstrap_runs_one_running: 'A bootstrap of this server is already running' });
  }

  start(serverId: string): Promise<BootstrapRunRow> {
    return this.insert({ serverId, status: 'running', steps: JSON.stringify([]) as never });
  }

  latestOf(serverId: string): Promise<BootstrapRunRow | undefined> {
    return this.q().where({ serverId }).orderBy([{ column: 'startedAt', order: 'desc' }, { column: 'id', order: 'desc' }]).first() as Promise<BootstrapRunRow | undefined>;
  }

  async progress(id: string, changes: { steps?: BootstrapStep[]; distribution?: Record<string, unknown> }): Promise<void> {
    await this.q().where({ id }).update({
      ...(changes.steps && { steps: JSON.stringify(changes.steps) }),
      ...(changes.distribution && { distribution: JSON.stringify(changes.distribution) }),
      updatedAt: this.db.fn.now(),
    } as never);
  }

  async finish(id: string, status: 'succeeded' | 'failed', steps: BootstrapStep[], error: string | null): Promise<void> {
    await this.q().where({ id }).update({
      status, error, steps: JSON.stringify(steps), finishedAt: this.db.fn.now(), updatedAt: this.db.fn.now(),
    } as never);
  }

  /** The runner is alive: it touches its run every few seconds while a step takes long. */
  async heartbeat(id: string): Promise<void> {
    await this.q().where({ id, status: 'running' }).update({ updatedAt: this.db.fn.now() } as never);
  }

  /**
   * Runs of the server whose runner stopped touching them (the controller that ran them stopped):
   * they will never finish, so they are failed and a new bootstrap may start.
   */
  async failAbandoned(serverId: string, staleMs: number): Promise<number> {
    return this.q().where({ serverId, status: 'running' })
      .where('updatedAt', '<', this.db.raw(`now() - (? * interval '1 millisecond')`, [staleMs])).update({
      status: 'failed', error: 'interrupted: the controller stopped during the bootstrap', finishedAt: this.db.fn.now(), updatedAt: this.db.fn.now(),
    } as never);
  }
}

export function toBootstrapRun(r: BootstrapRunRow) {
  return {
    id: r.id, serverId: r.serverId, status: r.status, distribution: r.distribution, steps: r.steps, error: r.error,
    startedAt: r.startedAt, finishedAt: r.finishedAt,
  };
}
