import type { Knex } from 'knex';
import type { PlanStatus } from '../../model/plan-states.js';
import { camelizeRow } from '../case.js';
import { waveStatus, type AnalysisRecord, type PlanWave, type WaveState } from '../../model/plan-waves.js';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';

export interface PlanItem { serviceId: string; imageTag?: string | null; deploymentIds?: string[] }

export interface DeploymentPlanRow {
  id: string;
  environmentId: string;
  name: string;
  status: PlanStatus;
  strategy: 'rolling' | 'parallel';
  autoRollback: boolean;
  pullImage: boolean;
  generateArtifacts: boolean;
  trigger: string;
  items: PlanItem[];
  cancelRequested: boolean;
  /** The newer plan for the same services that made this one stop. */
  supersededBy: string | null;
  owner: string | null;
  heartbeatAt: Date | null;
  /** How often another replica took the plan over after its runner's lease ran out. */
  takeovers: number;
  /** Its waves, when a service of it has a rollout (controller/model/plan-waves.ts); null: no waves. */
  waves: PlanWave[] | null;
  /** Where the running plan is: wave, phase, pause deadline. */
  waveState: WaveState | null;
  /** Each analysis run between waves, in order. */
  analysis: AnalysisRecord[];
  /** An operator asked it to stop at its next wave boundary (POST …/pause; …/resume clears it). */
  pauseRequested: boolean;
  /** The wave whose pause was promoted (POST …/promote). */
  promotedWave: number | null;
  error: string | null;
  createdBy: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A plan taken over, with the lease it had before. */
export interface StalePlan extends DeploymentPlanRow {
  previousOwner: string | null;
  previousHeartbeatAt: Date | null;
}

export class DeploymentPlansRepository extends BaseRepository<DeploymentPlanRow> {
  constructor(db: Knex) {
    super(db, 'deployment_plans');
  }

  /** A new pending plan, stamped with the moment it was accepted (clock_timestamp(), not the transaction's start). */
  async create(values: Partial<DeploymentPlanRow>, trx: Knex.Transaction): Promise<DeploymentPlanRow> {
    const [plan] = await this.q(trx).insert({ ...values, createdAt: trx.raw('clock_timestamp()') } as never).returning('*');
    return plan as DeploymentPlanRow;
  }

  /** Asks a pending or running plan to stop before its next step; undefined when it is neither. */
  async requestCancel(id: string): Promise<DeploymentPlanRow | undefined> {
    const [row] = await this.q().where({ id } as never).whereIn('status', ['pending', 'running'])
      .update({ cancelRequested: true, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /** Plans of an environment (optionally of one status), newest first. */
  async pageOfEnvironment(environmentId: string, status: string | undefined, page: PageQuery): Promise<Page<DeploymentPlanRow>> {
    const base = () => {
      const q = this.q().where({ environmentId } as never);
      return status ? q.where({ status } as never) : q;
    };
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as DeploymentPlanRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** Moves a plan only when it is still in `from` (compare-and-set): two callers cannot both win. */
  async transition(id: string, from: PlanStatus[], values: Partial<DeploymentPlanRow> & { status: PlanStatus }, trx?: Knex.Transaction) {
    const [row] = await this.q(trx).where('id', id).whereIn('status', from)
      .update({ ...values, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /**
   * Takes over plans whose lease ran out (the process working on them is gone, or its runner died
   * without finishing them), at most `limit` at once: rows are locked with SKIP LOCKED and
   * re-leased to `owner` in one statement, so two replicas sweeping at once never take the same
   * plan. `ownActive` are plans `owner` is still running (never taken from itself). Each row
   * comes back with the lease it had before.
   */
  async takeOverStale(owner: string, leaseMs: number, ownActive: string[], limit = 20): Promise<StalePlan[]> {
    const { rows } = await this.db.raw(`
      WITH stale AS (
        SELECT id, owner AS previous_owner, heartbeat_at AS previous_heartbeat_at FROM deployment_plans
        WHERE status IN ('running', 'rolling_back')
          AND (heartbeat_at IS NULL OR heartbeat_at < now() - make_interval(secs => ?))
          AND NOT (owner IS NOT DISTINCT FROM ? AND id = ANY(?::uuid[]))
        ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)
      UPDATE deployment_plans p SET owner = ?, heartbeat_at = now(), updated_at = now(),
        takeovers = p.takeovers + CASE WHEN stale.previous_owner IS DISTINCT FROM ? THEN 1 ELSE 0 END
      FROM stale WHERE p.id = stale.id
      RETURNING p.*, stale.previous_owner, stale.previous_heartbeat_at`,
    [leaseMs / 1000, owner, ownActive, limit, owner, owner]);
    return (rows as Array<Record<string, unknown>>).map((r) => camelizeRow(r) as unknown as StalePlan);
  }

  /**
   * A newer plan for the same services supersedes every older plan still pending or running for
   * them: a pending one ends cancelled at once, a running one is asked to stop at its next step
   * boundary. Returns the plans it changed. Runs in the newer plan's transaction.
   */
  async supersede(serviceIds: string[], newer: string, trx: Knex.Transaction): Promise<DeploymentPlanRow[]> {
    if (!serviceIds.length) return [];
    const older = this.db('plan_steps').whereIn('serviceId', serviceIds).whereNot('planId', newer).select('planId');
    const error = `superseded by plan ${newer}`;
    const pending = await this.q(trx).whereIn('id', older).where('status', 'pending')
      .update({ status: 'cancelled', cancelRequested: true, supersededBy: newer, error, finishedAt: this.db.fn.now(), updatedAt: this.db.fn.now() } as never)
      .returning('*') as DeploymentPlanRow[];
    if (pending.length) {
      await trx('plan_steps').whereIn('planId', pending.map((p) => p.id)).where('status', 'pending').update({ status: 'cancelled', updatedAt: this.db.fn.now() });
    }
    const running = await this.q(trx).whereIn('id', older).where('status', 'running')
      // the first newer plan is the one that superseded it
      .update({ cancelRequested: true, supersededBy: this.db.raw('coalesce(??, ?)', ['supersededBy', newer]), updatedAt: this.db.fn.now() } as never)
      .returning('*') as DeploymentPlanRow[];
    return [...pending, ...running];
  }

  /** Locks a pending plan for the transaction; undefined when it is no longer pending. */
  /** The newest plan pending, running or rolling back with a step for the service (but `except`). */
  activeForService(serviceId: string, except?: string): Promise<DeploymentPlanRow | undefined> {
    const plans = this.db('plan_steps').where({ serviceId }).select('planId');
    return this.q().whereIn('id', plans).modify((q) => { if (except) q.whereNot('id', except); }).whereIn('status', ['pending', 'running', 'rolling_back']).orderBy('createdAt', 'desc').first() as Promise<DeploymentPlanRow | undefined>;
  }

  /** activeForService of many services at once (a reconcile batch): the newest such plan of each, by service id. */
  async activeForServices(serviceIds: string[]): Promise<Map<string, DeploymentPlanRow>> {
    if (!serviceIds.length) return new Map();
    const rows = await this.db('plan_steps as st').join('deployment_plans as p', 'p.id', 'st.plan_id')
      .whereIn('st.serviceId', serviceIds).whereIn('p.status', ['pending', 'running', 'rolling_back'])
      .distinctOn('st.serviceId').orderBy([{ column: 'st.serviceId' }, { column: 'p.createdAt', order: 'desc' }])
      .select('st.serviceId as stepServiceId', 'p.*') as Array<DeploymentPlanRow & { stepServiceId: string }>;
    return new Map(rows.map(({ stepServiceId, ...plan }) => [stepServiceId, plan as DeploymentPlanRow]));
  }

  /** A plan pending, running or rolling back that shares a service with `planId` and is not it. */
  otherActiveSharingServices(planId: string, o: { olderThan?: Date; trx?: Knex.Transaction } = {}): Promise<DeploymentPlanRow | undefined> {
    const services = this.db('plan_steps').where({ planId }).whereNotNull('serviceId').select('serviceId');
    const plans = this.db('plan_steps').whereIn('serviceId', services).whereNot({ planId }).select('planId');
    const q = this.q(o.trx).whereIn('id', plans).whereIn('status', ['pending', 'running', 'rolling_back']);
    if (o.olderThan) q.where('createdAt', '<', o.olderThan);
    return q.orderBy('createdAt', 'desc').first() as Promise<DeploymentPlanRow | undefined>;
  }

  async lockPending(id: string, trx: Knex.Transaction): Promise<DeploymentPlanRow | undefined> {
    return (await this.q(trx).where({ id, status: 'pending' } as never).forUpdate().first()) as DeploymentPlanRow | undefined;
  }

  /** The running plan's wave and phase, only while `owner` holds it (a runner that lost its lease writes nothing). */
  async setWaveState(id: string, owner: string, waveState: WaveState): Promise<DeploymentPlanRow | undefined> {
    const [row] = await this.q().where({ id, owner } as never).update({ waveState: JSON.stringify(waveState), updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /** The analyses run so far (the whole list, written by the plan's runner). */
  async setAnalysis(id: string, owner: string, analysis: AnalysisRecord[]): Promise<void> {
    await this.q().where({ id, owner } as never).update({ analysis: JSON.stringify(analysis), updatedAt: this.db.fn.now() } as never);
  }

  /** POST …/pause: a running plan with waves stops at its next wave boundary; undefined when it is not such a plan. */
  async requestPause(id: string): Promise<DeploymentPlanRow | undefined> {
    const [row] = await this.q().where({ id, status: 'running' } as never).whereNotNull('waves')
      .update({ pauseRequested: true, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /** POST …/resume: an operator's pause lifted; undefined when none was asked for. */
  async resume(id: string): Promise<DeploymentPlanRow | undefined> {
    const [row] = await this.q().where({ id, status: 'running', pauseRequested: true } as never)
      .update({ pauseRequested: false, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /** POST …/promote: the pause the running plan is in ends (an operator's pause too); undefined when it is not paused. */
  async promote(id: string): Promise<DeploymentPlanRow | undefined> {
    const [row] = await this.q().where({ id, status: 'running' } as never).whereRaw(`wave_state->>'phase' = 'paused'`)
      .update({ promotedWave: this.db.raw(`(wave_state->>'wave')::int`), pauseRequested: false, updatedAt: this.db.fn.now() } as never).returning('*');
    return row as DeploymentPlanRow | undefined;
  }

  /** Renews the lease of the plans `owner` runs; answers the ids it still holds (another replica may have taken one over). */
  async heartbeat(owner: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.q().whereIn('id', ids).where('owner', owner).update({ heartbeatAt: this.db.fn.now() } as never).returning('id');
    return new Set((rows as Array<{ id: string }>).map((r) => r.id));
  }
}

/** The wave the running plan is in, as reads show it; null when it has none (or has ended). */
export function currentWaveOf(p: DeploymentPlanRow) {
  const st = p.waveState;
  if (!st || !p.waves || p.status !== 'running') return null;
  return { index: st.wave, of: p.waves.length, phase: st.phase, since: st.since, pauseUntil: st.pauseUntil, pausedBy: st.pausedBy };
}

/** Each wave with its steps' containers, its status and its analysis (reads with steps). */
export function wavesOf(p: DeploymentPlanRow, steps: Array<{ wave: number | null; status: string; deploymentId: string | null; serverId: string | null; containerName: string }>) {
  if (!p.waves) return null;
  const analysis = p.analysis ?? [];
  return p.waves.map((w) => ({
    index: w.index, serviceId: w.serviceId, service: w.serviceName, size: w.size, width: w.width,
    pauseSec: w.pauseSec, pause: w.pause, analysis: w.analysis,
    status: waveStatus(w.index, steps, p.waveState, p.status === 'running', analysis),
    deployments: steps.filter((x) => x.wave === w.index).map((x) => ({ deploymentId: x.deploymentId, serverId: x.serverId, containerName: x.containerName })),
    result: analysis.filter((a) => a.wave === w.index).at(-1) ?? null,
  }));
}

export function toPlan(p: DeploymentPlanRow, steps?: Array<{ wave: number | null; status: string; deploymentId: string | null; serverId: string | null; containerName: string }>) {
  return {
    id: p.id, environmentId: p.environmentId, name: p.name, status: p.status, strategy: p.strategy,
    autoRollback: p.autoRollback, pullImage: p.pullImage, generateArtifacts: p.generateArtifacts, trigger: p.trigger,
    items: p.items, cancelRequested: p.cancelRequested, supersededBy: p.supersededBy ?? null, error: p.error, createdBy: p.createdBy,
    startedAt: p.startedAt, finishedAt: p.finishedAt, createdAt: p.createdAt, updatedAt: p.updatedAt,
    currentWave: currentWaveOf(p), pauseRequested: p.pauseRequested ?? false,
    ...(steps && { waves: wavesOf(p, steps), steps }),
  };
}
