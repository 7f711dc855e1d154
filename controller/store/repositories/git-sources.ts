import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

/** What the last fetch-and-apply of a source did (written at its end; read by the status). */
export interface SyncAttempt {
  at: string;
  trigger: 'poll' | 'webhook' | 'api' | 'startup';
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
  generation: number;
  syncingSince: Date | null;
  lastFetchAt: Date | null;
  fetchedCommit: string | null;
  appliedRevision: AppliedRevision | null;
  appliedGeneration: number | null;
  lastAttempt: SyncAttempt | null;
  createdAt: Date;
  updatedAt: Date;
}

export type GitSourceSettings = Pick<GitSourceRow, 'url' | 'ref' | 'path' | 'pollIntervalSec' | 'prune' | 'sshPrivateKeySealed' | 'username' | 'tokenSealed' | 'knownHosts'>;

/** A sync that has not ended after this long was cut off (its process died): another may start. */
const SYNC_LEASE_MS = 10 * 60_000;

/** One Git source per environment (git_sources) and each environment's age identity (environment_age_keys). */
export class GitSourcesRepository extends BaseRepository<GitSourceRow> {
  constructor(db: Knex) {
    super(db, 'git_sources');
  }

  ofEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<GitSourceRow | undefined> {
    return this.q(trx).where({ environmentId }).first() as Promise<GitSourceRow | undefined>;
  }

  /** Creates or replaces the environment's source; a replaced one's generation goes up (its applied commit is then OutOfSync). */
  async save(environmentId: string, values: GitSourceSettings): Promise<GitSourceRow> {
    const [row] = await this.guard(this.q().insert({ ...values, environmentId } as never)
      .onConflict('environmentId').merge({ ...values, generation: this.db.raw('git_sources.generation + 1'), updatedAt: this.db.fn.now() } as never)
      .returning('*'));
    return row as GitSourceRow;
  }

  async removeOf(environmentId: string): Promise<boolean> {
    return (await this.q().where({ environmentId }).delete()) > 0;
  }

  listAll(): Promise<GitSourceRow[]> {
    return this.q().orderBy('createdAt') as Promise<GitSourceRow[]>;
  }

  /** Claims the source for one sync (compare-and-set): false when another sync holds it. */
  async claim(id: string): Promise<boolean> {
    const n = await this.q().where({ id })
      .andWhere((w) => w.whereNull('syncingSince').orWhere('syncingSince', '<', new Date(Date.now() - SYNC_LEASE_MS)))
      .update({ syncingSince: this.db.fn.now() } as never);
    return n > 0;
  }

  async release(id: string, values: Partial<Pick<GitSourceRow, 'lastFetchAt' | 'fetchedCommit' | 'appliedRevision' | 'appliedGeneration' | 'lastAttempt' | 'knownHosts'>>): Promise<void> {
    const row: Record<string, unknown> = { ...values, syncingSince: null };
    if (values.appliedRevision) row.appliedRevision = JSON.stringify(values.appliedRevision);
    if (values.lastAttempt) row.lastAttempt = JSON.stringify(values.lastAttempt);
    await this.q().where({ id }).update(row as never);
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
