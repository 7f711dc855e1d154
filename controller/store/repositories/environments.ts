import type { Knex } from 'knex';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';

export interface EnvironmentRow {
  id: string;
  name: string;
  description: string | null;
  generation: number;
  status: Record<string, unknown>;
  source: Record<string, unknown>;
  /** A preview environment's parent (docs/git-sources.md#previews); null for every other. */
  parentEnvironmentId?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The environment's SSH key columns (the private key sealed). */
export interface EnvironmentSshKey {
  sshPrivateKeySealed: string | null;
  sshPublicKey: string | null;
  sshKeyFingerprint: string | null;
  sshKeyUpdatedAt: Date | null;
}

export class EnvironmentsRepository extends BaseRepository<EnvironmentRow> {
  constructor(db: Knex) {
    super(db, 'environments', { environments_name_unique: 'An environment with this name already exists' });
  }

  findByName(name: string, trx?: Knex.Transaction) {
    return this.findOne({ name }, trx);
  }

  /** One page by name; `allowed` (a token's environments) narrows it, null means all. */
  async pageVisible(allowed: string[] | null, page: PageQuery): Promise<Page<EnvironmentRow>> {
    const base = () => (allowed ? this.q().whereIn('id', allowed) : this.q());
    const [items, [{ count }]] = await Promise.all([
      base().orderBy('name').limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: items as EnvironmentRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** Id and name of every environment (or of `allowed`), by name. */
  async names(allowed: string[] | null): Promise<Array<{ id: string; name: string }>> {
    const q = this.q().select('id', 'name').orderBy('name');
    if (allowed) q.whereIn('id', allowed);
    return q as unknown as Promise<Array<{ id: string; name: string }>>;
  }

  /** Which of `ids` exist. */
  async existingIds(ids: string[]): Promise<string[]> {
    return this.q().whereIn('id', ids).pluck('id');
  }

  async sshKeyOf(id: string): Promise<EnvironmentSshKey> {
    return this.q().where({ id }).first('sshPrivateKeySealed', 'sshPublicKey', 'sshKeyFingerprint', 'sshKeyUpdatedAt') as unknown as Promise<EnvironmentSshKey>;
  }

  /** Stores the sealed key; answers when it was stored. */
  async setSshKey(id: string, key: { sshPrivateKeySealed: string; sshPublicKey: string; sshKeyFingerprint: string }): Promise<Date> {
    const [row] = await this.q().where({ id }).update({ ...key, sshKeyUpdatedAt: this.db.fn.now() } as never).returning(['sshKeyUpdatedAt']);
    return (row as { sshKeyUpdatedAt: Date }).sshKeyUpdatedAt;
  }

  async clearSshKey(id: string): Promise<void> {
    await this.q().where({ id })
      .update({ sshPrivateKeySealed: null, sshPublicKey: null, sshKeyFingerprint: null, sshKeyUpdatedAt: this.db.fn.now() } as never);
  }
}

export function toEnvironment(e: EnvironmentRow) {
  return {
    id: e.id, name: e.name, description: e.description, generation: e.generation,
    status: e.status, source: e.source, createdAt: e.createdAt, updatedAt: e.updatedAt,
  };
}
