import type { Knex } from 'knex';
import type { StepStatus } from '../../model/plan-states.js';
import { BaseRepository, isUuid } from './base-repository.js';

export interface PlanStepRow {
  id: string;
  planId: string;
  position: number;
  stage: number;
  action: 'deploy' | 'restart' | 'remove';
  serviceId: string | null;
  deploymentId: string | null;
  serverId: string | null;
  containerName: string;
  status: StepStatus;
  imageTag: string | null;
  previousImageTag: string | null;
  /** The revision of the service the step rolls out (null: a plan from before revisions). */
  revision: number | null;
  /** The revision the deployment ran when the step started: what its rollback restores. */
  previousRevision: number | null;
  /** A remove step: the pruned deployment whose container it removes (its row is gone). */
  removedDeploymentId: string | null;
  /** The wave of its plan the step belongs to (null: the plan has no waves). */
  wave: number | null;
  mode: string | null;
  log: string;
  error: string | null;
  rollbackError: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export class PlanStepsRepository extends BaseRepository<PlanStepRow> {
  constructor(db: Knex) {
    super(db, 'plan_steps');
  }

  ofPlan(planId: string, trx?: Knex.Transaction): Promise<PlanStepRow[]> {
    return this.q(trx).where({ planId }).orderBy('position') as Promise<PlanStepRow[]>;
  }

  /** The steps of a new plan, in their order. */
  async insertForPlan(planId: string, steps: Array<Partial<PlanStepRow>>, trx: Knex.Transaction): Promise<void> {
    await this.q(trx).insert(steps.map((st, position) => ({ ...st, planId, position })) as never);
  }

  /** A proposal executed: its steps roll out the revision the request was accepted as. */
  async setRevision(planId: string, serviceId: string, revision: number, trx: Knex.Transaction): Promise<void> {
    await this.q(trx).where({ planId, serviceId } as never).update({ revision } as never);
  }

  /** Ends the plan's steps that never started (cancelled, or skipped after a failure). */
  async endPending(planId: string, status: 'cancelled' | 'skipped'): Promise<void> {
    await this.q().where({ planId, status: 'pending' } as never).update({ status, updatedAt: this.db.fn.now() } as never);
  }

  /** Marks the plan's running steps failed with `error` (their process stopped under them). */
  async failRunning(planId: string, error: string): Promise<void> {
    await this.q().where({ planId, status: 'running' } as never)
      .update({ status: 'failed', error, finishedAt: this.db.fn.now(), updatedAt: this.db.fn.now() } as never);
  }

  /** Ends the plan's running steps `cancelled` (not run again), each with `line` in its log; the steps it ended. */
  async cancelRunning(planId: string, line: string): Promise<PlanStepRow[]> {
    const ended: PlanStepRow[] = [];
    for (const st of await this.q().where({ planId, status: 'running' } as never) as PlanStepRow[]) {
      await this.appendLog(st.id, line);
      const row = await this.transition(st.id, ['running'], { status: 'cancelled', finishedAt: new Date() });
      if (row) ended.push(row);
    }
    return ended;
  }

  /** Only when the step is still in `from` (compare-and-set). */
  async transition(id: string, from: StepStatus[], values: Partial<PlanStepRow> & { status: StepStatus }, trx?: Knex.Transaction) {
    const [row] = await this.q(trx).where('id', id).whereIn('status', from)
      .update({ ...values, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as PlanStepRow | undefined;
  }

  async appendLog(id: string, line: string): Promise<void> {
    const stamped = `${new Date().toISOString()} ${line.replace(/\s+$/, '')}\n`;
    await this.q().where('id', id).update({ log: this.db.raw('log || ?', [stamped]) } as never);
  }

  /** Steps that touched one deployment, newest first (deploy history). */
  async historyOfService(serviceId: string, limit: number, offset: number) {
    const base = () => this.db('plan_steps as s').join('deployment_plans as p', 'p.id', 's.plan_id').where('s.service_id', serviceId)
      .whereNotIn('s.status', ['pending', 'skipped', 'cancelled']);
    const [rows, [{ count }]] = await Promise.all([
      base().select('s.*', 'p.name as plan_name', 'p.status as plan_status', 'p.trigger as plan_trigger')
        .orderBy([{ column: 's.created_at', order: 'desc' }, { column: 's.position', order: 'desc' }]).limit(limit).offset(offset),
      base().count({ count: '*' }),
    ]);
    return { rows: rows as Array<HistoryRow>, total: Number(count) };
  }

  /** One record of a service's deployment history (a deploy step that ran), with its plan's name, status and trigger. */
  async historyRecord(serviceId: string, stepId: string) {
    if (!isUuid(stepId)) return undefined;
    const row = await this.db('plan_steps as s').join('deployment_plans as p', 'p.id', 's.plan_id')
      .where({ 's.service_id': serviceId, 's.id': stepId }).whereNotIn('s.status', ['pending', 'skipped', 'cancelled'])
      .first('s.*', 'p.name as plan_name', 'p.status as plan_status', 'p.trigger as plan_trigger');
    return row as (HistoryRow) | undefined;
  }

  /**
   * Deployments a plan is working on right now (pending, running or rolling back): they are in
   * motion, not drifted. `deploymentIds` narrows the question; omitted, every such deployment.
   */
  async deploymentsInMotion(deploymentIds?: string[]): Promise<Set<string>> {
    if (deploymentIds && !deploymentIds.length) return new Set();
    const q = this.db('plan_steps as st').join('deployment_plans as p', 'p.id', 'st.planId')
      .whereIn('p.status', ['pending', 'running', 'rolling_back']).whereNotNull('st.deploymentId');
    if (deploymentIds) q.whereIn('st.deploymentId', deploymentIds);
    const rows = (await q.distinct('st.deploymentId')) as Array<{ deploymentId: string }>;
    return new Set(rows.map((r) => r.deploymentId));
  }

  /** The newest finished plan that touched the deployment: its id, status, trigger and end. */
  async lastPlanOf(deploymentId: string): Promise<{ planId: string; status: string; trigger: string; finishedAt: Date | null } | undefined> {
    const row = await this.db('plan_steps as st').join('deployment_plans as p', 'p.id', 'st.planId')
      .where('st.deploymentId', deploymentId).whereNotIn('p.status', ['pending', 'running', 'rolling_back'])
      .orderBy('p.createdAt', 'desc').first('p.id as planId', 'p.status', 'p.trigger', 'p.finishedAt');
    return row ? { planId: row.planId as string, status: row.status as string, trigger: row.trigger as string, finishedAt: row.finishedAt as Date | null } : undefined;
  }

  /**
   * Whether a plan created after `plan` has run a step on the deployment (running or ended, not
   * skipped nor cancelled): then that newer request owns its container, whatever revision it ran.
   */
  async touchedByNewerPlan(deploymentId: string, plan: { id: string; createdAt: Date }): Promise<boolean> {
    const row = await this.db('plan_steps as st').join('deployment_plans as p', 'p.id', 'st.planId')
      .where('st.deploymentId', deploymentId).whereNot('st.planId', plan.id).where('p.createdAt', '>', plan.createdAt)
      .whereIn('st.status', ['running', 'succeeded', 'failed', 'rolled_back']).first('st.id');
    return !!row;
  }

  /** The servers a plan has steps on. */
  async serverIdsOf(planId: string): Promise<string[]> {
    const rows = (await this.q().where({ planId }).whereNotNull('serverId').distinct('serverId')) as Array<{ serverId: string }>;
    return rows.map((r) => r.serverId);
  }

  /** The deployments a plan has steps for. */
  async deploymentIdsOf(planId: string): Promise<string[]> {
    const rows = (await this.q().where({ planId }).whereNotNull('deploymentId').distinct('deploymentId')) as Array<{ deploymentId: string }>;
    return rows.map((r) => r.deploymentId);
  }
}

/** A deploy step that ran, with its plan's name, status and trigger (a service's deployment history). */
export type HistoryRow = PlanStepRow & { planName: string; planStatus: string; planTrigger: string };

/** A record of a service's deployment history as the API answers it. */
export function toHistoryRecord(r: HistoryRow) {
  return { ...toStep(r), planName: r.planName, planStatus: r.planStatus, trigger: r.planTrigger };
}

export function toStep(s: PlanStepRow) {
  return {
    id: s.id, planId: s.planId, position: s.position, stage: s.stage, wave: s.wave ?? null, action: s.action, serviceId: s.serviceId,
    deploymentId: s.deploymentId, serverId: s.serverId, containerName: s.containerName, status: s.status,
    imageTag: s.imageTag, previousImageTag: s.previousImageTag, revision: s.revision ?? null, previousRevision: s.previousRevision ?? null,
    mode: s.mode, log: s.log, error: s.error, rollbackError: s.rollbackError, startedAt: s.startedAt, finishedAt: s.finishedAt,
    durationMs: s.startedAt && s.finishedAt ? new Date(s.finishedAt).getTime() - new Date(s.startedAt).getTime() : null,
  };
}
