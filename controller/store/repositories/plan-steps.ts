import type { Knex } from 'knex';
import type { StepStatus } from '../../deploy/plans/plan-states.js';
import { BaseRepository } from './base-repository.js';

export interface PlanStepRow {
  id: string;
  planId: string;
  position: number;
  stage: number;
  action: 'deploy' | 'restart';
  serviceId: string | null;
  deploymentId: string | null;
  serverId: string | null;
  containerName: string;
  status: StepStatus;
  imageTag: string | null;
  previousImageTag: string | null;
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
    return { rows: rows as Array<PlanStepRow & { planName: string; planStatus: string; planTrigger: string }>, total: Number(count) };
  }
}

export function toStep(s: PlanStepRow) {
  return {
    id: s.id, planId: s.planId, position: s.position, stage: s.stage, action: s.action, serviceId: s.serviceId,
    deploymentId: s.deploymentId, serverId: s.serverId, containerName: s.containerName, status: s.status,
    imageTag: s.imageTag, previousImageTag: s.previousImageTag, mode: s.mode, log: s.log, error: s.error,
    rollbackError: s.rollbackError, startedAt: s.startedAt, finishedAt: s.finishedAt,
    durationMs: s.startedAt && s.finishedAt ? new Date(s.finishedAt).getTime() - new Date(s.startedAt).getTime() : null,
  };
}
