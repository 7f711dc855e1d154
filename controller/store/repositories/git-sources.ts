import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { Condition } from '../../model/conditions.js';
import type { PreviewsConfig } from '../../manifests/git/preview-config.js';

/** What asked for a sync: a poll (the interval passed), a push webhook, the API (a sync asked for, a source saved). */
export type SyncTrigger = 'poll' | 'webhook' | 'api';

/** What the last fetch-and-apply of a source did (written at its end; read by the status). */
export interface SyncAttempt {
  at: string;
  trigger: SyncTrigger;
  ok: boolean;
  /** The commit tried; null when the fetch itself failed. */
  commit: string | null;
  /** One line for people: the fetch error, or the first manifest error with file:line. */
  error: string | null;
  /** Every manifest error, each with file (inside the repository), line, column and path. */
  errors: Array<{ file: string; line: number; column: number; path: string; message: string }>;
  plans: string[];
  counts?: { create: number; update: number; delete: number; orphan: number };
}

/** The last commit status posted for a source, and the plans of that commit it waits for (state pending). */
export interface CommitStatusRecord { commit: string; state: 'pending' | 'success' | 'failure'; description: string; plans: string[] }

/** The commit a source applied: what plans, revisions and ownership conflicts name. */
export interface AppliedRevision { commit: string; author: string; message: string; committedAt: string }

export interface GitSourceRow {
  id: string;
  environmentId: string;
  url: string;
  ref: string | null;
  path: string;
  pollIntervalSec: number;
  prune: boolean;
  sshPrivateKeySealed: string | null;
  username: string | null;
  tokenSealed: string | null;
  /** The remote's host key line(s), pinned at the first ssh fetch. */
  knownHosts: string | null;
  /** Bumped by each save of the source and each sync asked for (a push, the API): the desired state. */
  generation: number;
  /** The generation the last reconcile pass ended at (null: never reconciled). */
  observedGeneration: number | null;
  /** What asked for the newest generation, when, and the commit a push named (null: the ref's newest). */
  requestedAt: Date | null;
  requestedTrigger: SyncTrigger | null;
  requestedCommit: string | null;
  conditions: Condition[];
  /** The process holding the source for a reconcile pass, until when (renewed while it runs). */
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** The code host commit statuses are posted to (docs/git-sources.md#commit-statuses); its token sealed. */
  codeHostType: 'github' | 'gitea' | null;
  codeHostApiUrl: string | null;
  codeHostTokenSealed: string | null;
  commitStatus: CommitStatusRecord | null;
  /** Preview environments per pull request (docs/git-sources.md#previews); null: none. */
  previews: PreviewsConfig | null;
  lastFetchAt: Date | null;
  fetchedCommit: string | null;
  appliedRevision: AppliedRevision | null;
  appliedGeneration: number | null;
  lastAttempt: SyncAttempt | null;
  createdAt: Date;
  updatedAt: Date;
}

export type GitSourceSettings = Pick<GitSourceRow, 'url' | 'ref' | 'path' | 'pollIntervalSec' | 'prune' | 'sshPrivateKeySealed' | 'username' | 'tokenSealed' | 'knownHosts'
  | 'codeHostType' | 'codeHostApiUrl' | 'codeHostTokenSealed' | 'previews'>;

/** What one reconcile pass observed: written once, at its end, with the lease let go. */
export type SyncOutcome = Partial<Pick<GitSourceRow, 'lastFetchAt' | 'fetchedCommit' | 'appliedRevision' | 'appliedGeneration' | 'lastAttempt' | 'commitStatus'>>
  & Pick<GitSourceRow, 'observedGeneration' | 'conditions'>;

/** One Git source per environment (git_sources) and each environment's age identity (environment_age_keys). */
export class GitSourcesRepository extends BaseRepository<GitSourceRow> {
  constructor(db: Knex) {
    super(db, 'git_sources');
  }

  ofEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<GitSourceRow | undefined> {
    return this.q(trx).where({ environmentId }).first() as Promise<GitSourceRow | undefined>;
  }

  /**
   * Creates or replaces the environment's source; its generation goes up (a replaced one's applied
   * commit is then OutOfSync), which is the sync the save asks for.
   */
  async save(environmentId: string, settings: GitSourceSettings): Promise<GitSourceRow> {
    const values = { ...settings, previews: settings.previews ? JSON.stringify(settings.previews) : null };
    const asked = { requestedAt: this.db.fn.now(), requestedTrigger: 'api', requestedCommit: null };
    const [row] = await this.guard(this.q().insert({ ...values, ...asked, environmentId } as never)
      .onConflict('environmentId').merge({ ...values, ...asked, generation: this.db.raw('git_sources.generation + 1'), updatedAt: this.db.fn.now() } as never)
      .returning('*'));
    return row as GitSourceRow;
  }

  /** Persists a sync asked for (generation + 1): the reconciler finds it however often the process dies before it runs. */
  async requestSync(id: string, trigger: SyncTrigger, commit: string | null): Promise<GitSourceRow | undefined> {
    const [row] = await this.q().where({ id })
      .update({ generation: this.db.raw('generation + 1'), requestedAt: this.db.fn.now(), requestedTrigger: trigger, requestedCommit: commit } as never)
      .returning('*');
    return row as GitSourceRow | undefined;
  }

  async removeOf(environmentId: string): Promise<boolean> {
    return (await this.q().where({ environmentId }).delete()) > 0;
  }

  listAll(): Promise<GitSourceRow[]> {
    return this.q().orderBy('createdAt') as Promise<GitSourceRow[]>;
  }

  /**
   * Takes the source for one reconcile pass (compare-and-set on the lease): the row as it is now,
   * or null while another live process holds it. A lease whose holder died runs out by itself.
   */
  async claim(id: string, owner: string, leaseMs: number): Promise<GitSourceRow | null> {
    const [row] = await this.q().where({ id })
      .andWhere((w) => w.whereNull('leaseUntil').orWhere('leaseUntil', '<', this.db.fn.now()).orWhere('leaseOwner', owner))
      .update({ leaseOwner: owner, leaseUntil: this.db.raw(`now() + make_interval(secs => ?)`, [leaseMs / 1000]) } as never)
      .returning('*');
    return (row as GitSourceRow | undefined) ?? null;
  }

  /** Milliseconds until another holder's lease runs out (0 when none is held). */
  async leaseLeftMs(id: string): Promise<number> {
    const row = await this.q().where({ id }).first(this.db.raw('greatest(0, extract(epoch from (lease_until - now())) * 1000) as left_ms') as never) as { leftMs?: string | number } | undefined;
    return Math.ceil(Number(row?.leftMs ?? 0));
  }

  /** Extends this owner's lease while its pass runs; false when it was lost (taken over). */
  async renew(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const n = await this.q().where({ id, leaseOwner: owner })
      .update({ leaseUntil: this.db.raw(`now() + make_interval(secs => ?)`, [leaseMs / 1000]) } as never);
    return n > 0;
  }

  /**
   * The one status write of a reconcile pass, and the lease let go; nothing is written when the
   * lease went to another process meanwhile (its pass reports). The row after it, or undefined.
   */
  async finish(id: string, owner: string, outcome: SyncOutcome): Promise<GitSourceRow | undefined> {
    const row: Record<string, unknown> = { ...outcome, conditions: JSON.stringify(outcome.conditions), leaseOwner: null, leaseUntil: null };
    if (outcome.appliedRevision) row.appliedRevision = JSON.stringify(outcome.appliedRevision);
    if (outcome.lastAttempt) row.lastAttempt = JSON.stringify(outcome.lastAttempt);
    if (outcome.commitStatus) row.commitStatus = JSON.stringify(outcome.commitStatus);
    const [after] = await this.q().where({ id, leaseOwner: owner }).update(row as never).returning('*');
    return after as GitSourceRow | undefined;
  }

  /** The final status of a pending commit, once (compare-and-set): false when another replica settled it, or a newer commit replaced it. */
  async settleCommitStatus(id: string, commit: string, final: CommitStatusRecord): Promise<boolean> {
    const n = await this.q().where({ id }).whereRaw("commit_status->>'commit' = ? and commit_status->>'state' = 'pending'", [commit])
      .update({ commitStatus: JSON.stringify(final) } as never);
    return n > 0;
  }

  /** Sources whose pending commit status waits for this plan. */
  async waitingForPlan(planId: string): Promise<string[]> {
    const rows = await this.q().whereRaw("commit_status->>'state' = 'pending' and commit_status->'plans' @> ?::jsonb", [JSON.stringify([planId])]).select('id');
    return rows.map((r) => (r as { id: string }).id);
  }

  async pinKnownHosts(id: string, knownHosts: string): Promise<void> {
    await this.q().where({ id }).whereNull('knownHosts').update({ knownHosts } as never);
  }

  /** Rows a deleted source applied belong to no manifest any more: the API may change them again. */
  async releaseOwnership(origin: string, tables: string[]): Promise<void> {
    await this.db.transaction(async (trx) => {
      for (const table of tables) {
        if (await trx.schema.hasColumn(table, 'source')) await trx(table).whereRaw("source->>'origin' = ?", [origin]).update({ source: JSON.stringify({ kind: 'api' }) });
      }
    });
  }

  async ageKeyOf(environmentId: string): Promise<{ identitySealed: string; recipient: string; updatedAt: Date } | undefined> {
    return this.db('environment_age_keys').where({ environmentId }).first();
  }

  async saveAgeKey(environmentId: string, identitySealed: string, recipient: string): Promise<void> {
    await this.db('environment_age_keys').insert({ environmentId, identitySealed, recipient, updatedAt: this.db.fn.now() })
      .onConflict('environmentId').merge();
  }

  async removeAgeKey(environmentId: string): Promise<boolean> {
    return (await this.db('environment_age_keys').where({ environmentId }).delete()) > 0;
  }
}
