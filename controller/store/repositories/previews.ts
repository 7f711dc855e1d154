import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { Condition } from '../../model/conditions.js';

/** What a preview shows: pending (being made or updated), ready (its plans succeeded), failed (with the reason), deleting. */
export type PreviewState = 'pending' | 'ready' | 'failed' | 'deleting';

/** A preview environment of a Git source for one pull request (docs/git-sources.md#previews). */
export interface PreviewRow {
  id: string;
  sourceId: string;
  /** The parent environment (the source's). */
  environmentId: string;
  number: number;
  /** The desired state, as the code host's pull_request webhook named it. */
  headSha: string;
  headRef: string | null;
  open: boolean;
  /** Why a closed preview goes: `closed` (the pull request) or `expired` (its TTL). */
  closeReason: string | null;
  generation: number;
  observedGeneration: number | null;
  conditions: Condition[];
  state: PreviewState;
  reason: string | null;
  previewEnvironmentId: string | null;
  appliedCommit: string | null;
  /** The plans the applied commit caused: the preview is ready when every one succeeded. */
  plans: string[];
  /** Every server an apply placed it on (the teardown's safety net looks there). */
  serverIds: string[];
  /** `<commit>:<state>` of the last commit status posted (each is posted once). */
  postedStatus: string | null;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** When the desired state last changed (a webhook): the TTL counts from here. */
  desiredAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** What one reconcile pass observed: written once, with the lease let go. */
export type PreviewOutcome = Partial<Pick<PreviewRow, 'state' | 'reason' | 'previewEnvironmentId' | 'appliedCommit' | 'plans' | 'postedStatus' | 'serverIds'>>
  & Pick<PreviewRow, 'observedGeneration' | 'conditions'>;

export interface DesiredPreview { sourceId: string; environmentId: string; number: number; headSha: string; headRef: string | null; open: boolean }

export class PreviewsRepository extends BaseRepository<PreviewRow> {
  constructor(db: Knex) {
    super(db, 'previews');
  }

  /**
   * Stores what a pull_request webhook asks for (generation + 1), before it is answered: the
   * reconciler finds it however often the process dies. A closed pull request with no preview
   * stored is nothing to do (undefined).
   */
  async desire(d: DesiredPreview): Promise<PreviewRow | undefined> {
    const values = { headSha: d.headSha, headRef: d.headRef, open: d.open, closeReason: d.open ? null : 'closed', desiredAt: this.db.fn.now(), updatedAt: this.db.fn.now() };
    if (!d.open) {
      const [row] = await this.q().where({ sourceId: d.sourceId, number: d.number })
        .update({ ...values, generation: this.db.raw('generation + 1') } as never).returning('*');
      return row as PreviewRow | undefined;
    }
    const [row] = await this.q().insert({ ...values, sourceId: d.sourceId, environmentId: d.environmentId, number: d.number } as never)
      .onConflict(['sourceId', 'number']).merge({ ...values, state: 'pending', generation: this.db.raw('previews.generation + 1') } as never)
      .returning('*');
    return row as PreviewRow;
  }

  /** A preview past its TTL is closed as expired (generation + 1): its teardown is a pass like any other. */
  async expire(id: string): Promise<PreviewRow | undefined> {
    const [row] = await this.q().where({ id, open: true })
      .update({ open: false, closeReason: 'expired', generation: this.db.raw('generation + 1'), updatedAt: this.db.fn.now() } as never).returning('*');
    return row as PreviewRow | undefined;
  }

  ofSourceNumber(sourceId: string, number: number): Promise<PreviewRow | undefined> {
    return this.q().where({ sourceId, number }).first() as Promise<PreviewRow | undefined>;
  }

  listAll(): Promise<PreviewRow[]> {
    return this.q().orderBy('createdAt') as Promise<PreviewRow[]>;
  }

  ofEnvironment(environmentId: string): Promise<PreviewRow[]> {
    return this.q().where({ environmentId }).orderBy('number') as Promise<PreviewRow[]>;
  }

  /** Previews waiting for this plan (their rollout or teardown). */
  async waitingForPlan(planId: string): Promise<PreviewRow[]> {
    return this.q().whereRaw('plans @> ?::jsonb', [JSON.stringify([planId])]) as Promise<PreviewRow[]>;
  }

  /** Takes the preview for one pass (compare-and-set on the lease): null while another live process holds it. */
  async claim(id: string, owner: string, leaseMs: number): Promise<PreviewRow | null> {
    const [row] = await this.q().where({ id })
      .andWhere((w) => w.whereNull('leaseUntil').orWhere('leaseUntil', '<', this.db.fn.now()).orWhere('leaseOwner', owner))
      .update({ leaseOwner: owner, leaseUntil: this.db.raw('now() + make_interval(secs => ?)', [leaseMs / 1000]) } as never)
      .returning('*');
    return (row as PreviewRow | undefined) ?? null;
  }

  async leaseLeftMs(id: string): Promise<number> {
    const row = await this.q().where({ id }).first(this.db.raw('greatest(0, extract(epoch from (lease_until - now())) * 1000) as left_ms') as never) as { leftMs?: string | number } | undefined;
    return Math.ceil(Number(row?.leftMs ?? 0));
  }

  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    return (await this.q().where({ id, leaseOwner: owner }).update({ leaseUntil: this.db.raw('now() + make_interval(secs => ?)', [leaseMs / 1000]) } as never)) > 0;
  }

  /** The one status write of a pass, and the lease let go; nothing when the lease was taken over. */
  async finish(id: string, owner: string, outcome: PreviewOutcome): Promise<PreviewRow | undefined> {
    const row: Record<string, unknown> = { ...outcome, conditions: JSON.stringify(outcome.conditions), leaseOwner: null, leaseUntil: null, updatedAt: this.db.fn.now() };
    if (outcome.plans) row.plans = JSON.stringify(outcome.plans);
    if (outcome.serverIds) row.serverIds = JSON.stringify(outcome.serverIds);
    const [after] = await this.q().where({ id, leaseOwner: owner }).update(row as never).returning('*');
    return after as PreviewRow | undefined;
  }

  /** The last pass of a closed preview: its environment is gone, and so is the row (only while this owner holds it). */
  async removeHeld(id: string, owner: string): Promise<boolean> {
    return (await this.q().where({ id, leaseOwner: owner }).delete()) > 0;
  }
}
