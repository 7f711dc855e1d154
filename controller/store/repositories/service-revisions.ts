import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';

export type RevisionOutcome = 'pending' | 'succeeded' | 'failed' | 'superseded';

export interface ServiceRevisionRow {
  id: string;
  serviceId: string;
  environmentId: string;
  revision: number;
  /** The whole rendered spec (reconcilers/service/revision-spec.ts): never a secret value. */
  spec: Record<string, unknown>;
  specHash: string;
  /** What asked for it: deploy, api (PATCH), manifest, webhook, auto-update, revert, … */
  source: string;
  createdBy: string | null;
  outcome: RevisionOutcome;
  /** Why it failed (the plan's error). */
  reason: string | null;
  /** A revert: the revision whose spec it restored. */
  revertedFrom: number | null;
  /** The plan that last rolled it out. */
  planId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type RevisionHead = Pick<ServiceRevisionRow, 'id' | 'revision' | 'specHash'>;

export interface NewRevision {
  serviceId: string;
  environmentId: string;
  spec: Record<string, unknown>;
  specHash: string;
  source: string;
  createdBy: string | null;
  revertedFrom?: number | null;
}

/** service_revisions: numbered per service (1, 2, …), immutable but for their outcome. */
export class ServiceRevisionsRepository extends BaseRepository<ServiceRevisionRow> {
  constructor(db: Knex) {
    super(db, 'service_revisions');
  }

  async find(serviceId: string, revision: number, trx?: Knex.Transaction): Promise<ServiceRevisionRow | undefined> {
    if (!isUuid(serviceId) || !Number.isSafeInteger(revision)) return undefined;
    return (await this.q(trx).where({ serviceId, revision }).first()) as ServiceRevisionRow | undefined;
  }

  latest(serviceId: string, trx?: Knex.Transaction): Promise<ServiceRevisionRow | undefined> {
    return this.q(trx).where({ serviceId }).orderBy('revision', 'desc').first() as Promise<ServiceRevisionRow | undefined>;
  }

  /**
   * A new revision numbered after `latest` (the caller holds the service's row lock and read the
   * newest under it, so two requests never take the same number).
   */
  async append(r: NewRevision, latest: number, trx: Knex.Transaction): Promise<RevisionHead> {
    const [row] = await this.guard(this.q(trx).insert({ ...r, spec: JSON.stringify(r.spec), revision: latest + 1, revertedFrom: r.revertedFrom ?? null } as never)
      .returning(['id', 'revision', 'specHash']));
    return row as RevisionHead;
  }

  /**
   * Under the service's row lock (the caller's transaction), in one statement: `r` becomes the
   * service's desired revision. When the newest revision has the same spec hash, it is that one
   * (asked for again: with `planId`, marked pending and rolling out by that plan); else a new one
   * numbered after the newest (the lock orders requests for one service, so two never take the
   * same number, and the unique key would refuse it). `retryFailed`: a failure recorded for that
   * revision on the service is cleared (a new attempt). A new one drops the revisions beyond the
   * newest `prune.keep` (itself included) but those `pinned` (current, failed, and those containers
   * run). Returns its number and whether it is new.
   */
  async acceptAsDesired(r: NewRevision & { planId: string | null; retryFailed: boolean; prune: { keep: number; pinned: number[] } },
    trx: Knex.Transaction): Promise<{ revision: number; created: boolean }> {
    const { rows } = await this.guard(trx.raw(`
      with head as (
        select id, revision, spec_hash from service_revisions where service_id = ? order by revision desc limit 1
      ), created as (
        insert into service_revisions (service_id, environment_id, revision, spec, spec_hash, source, created_by, reverted_from, plan_id)
        select ?, ?, coalesce((select revision from head), 0) + 1, ?::jsonb, ?, ?, ?, ?, ?::uuid
        where not exists (select 1 from head where spec_hash = ?)
        returning revision
      ), again as (
        update service_revisions r set outcome = 'pending', reason = null, plan_id = ?::uuid, updated_at = now()
        from head where r.id = head.id and head.spec_hash = ? and ?::uuid is not null
        returning r.revision
      ), pruned as (
        delete from service_revisions old where old.service_id = ? and exists (select 1 from created)
          and old.revision not in (select revision from service_revisions where service_id = ? order by revision desc limit ?)
          and old.revision <> all(?::int[])
      ), target as (
        select revision, true as created from created
        union all select revision, false from head where spec_hash = ?
      )
      update services s set desired_revision = t.revision,
        failed_revision = case when ? and s.failed_revision = t.revision then null else s.failed_revision end,
        failed_reason = case when ? and s.failed_revision = t.revision then null else s.failed_reason end
      from target t where s.id = ?
      returning t.revision, t.created`, [
      r.serviceId,
      r.serviceId, r.environmentId, JSON.stringify(r.spec), r.specHash, r.source, r.createdBy, r.revertedFrom ?? null, r.planId, r.specHash,
      r.planId, r.specHash, r.planId,
      r.serviceId, r.serviceId, Math.max(0, r.prune.keep - 1), r.prune.pinned,
      r.specHash,
      r.retryFailed, r.retryFailed, r.serviceId,
    ]));
    if (rows.length !== 1) throw new Error(`service ${r.serviceId}: no such service to accept a revision for`);
    return { revision: rows[0].revision as number, created: rows[0].created as boolean };
  }

  /** Newest first, without their specs (a list of 1,000 stays small). */
  async page(serviceId: string, page: PageQuery): Promise<Page<Omit<ServiceRevisionRow, 'spec'>>> {
    const columns = ['id', 'serviceId', 'environmentId', 'revision', 'specHash', 'source', 'createdBy', 'outcome', 'reason',
      'revertedFrom', 'planId', 'createdAt', 'updatedAt', this.db.raw(`spec->'image'->>'tag' as image_tag`)];
    const [rows, [{ count }]] = await Promise.all([
      this.q().where({ serviceId }).select(columns as never).orderBy('revision', 'desc').limit(page.limit).offset(page.offset),
      this.q().where({ serviceId }).count({ count: '*' }),
    ]);
    return { items: rows as never, total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** Two revisions of one service with their specs (a diff). */
  pair(serviceId: string, from: number, to: number): Promise<ServiceRevisionRow[]> {
    return this.q().where({ serviceId }).whereIn('revision', [from, to]) as Promise<ServiceRevisionRow[]>;
  }

  async recordOutcome(serviceId: string, revision: number, outcome: RevisionOutcome, reason: string | null, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where({ serviceId, revision }).update({ outcome, reason, updatedAt: this.db.fn.now() } as never);
  }

}

export function toRevisionSummary(r: Omit<ServiceRevisionRow, 'spec'> & { imageTag?: string | null }) {
  return {
    revision: r.revision, createdAt: r.createdAt, createdBy: r.createdBy, source: r.source, imageTag: r.imageTag ?? null,
    specHash: r.specHash, outcome: r.outcome, reason: r.reason, revertedFrom: r.revertedFrom, planId: r.planId,
  };
}
