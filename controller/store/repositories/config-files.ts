import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

export interface ConfigFileRow {
  id: string;
  environmentId: string;
  name: string;
  kind: 'template' | 'asset';
  content: string | null;
  data: Buffer | null;
  contentType: string | null;
  description: string | null;
  revision: number;
  generation: number;
  source: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConfigFileRevisionRow {
  id: string;
  configFileId: string;
  revision: number;
  content: string | null;
  data: Buffer | null;
  contentType: string | null;
  actorName: string | null;
  reason: string;
  createdAt: Date;
}

export class ConfigFilesRepository extends BaseRepository<ConfigFileRow> {
  constructor(db: Knex) {
    super(db, 'config_files', { config_files_env_name_unique: 'A config file with this name already exists in the environment' });
  }

  /** Records the file's current content as its revision `row.revision`. */
  async addRevision(row: ConfigFileRow, actorName: string | null, reason: string, trx?: Knex.Transaction) {
    await (trx ?? this.db)('config_file_revisions').insert({
      configFileId: row.id, revision: row.revision, content: row.content, data: row.data,
      contentType: row.contentType, actorName, reason,
    });
  }

  /**
   * Rewrites the stored content of every revision of a file with `rewrite` (the scanner turned a
   * value into a secret: earlier revisions must not keep it readable). Returns how many changed.
   */
  async rewriteRevisions(configFileId: string, rewrite: (content: string) => string, trx?: Knex.Transaction): Promise<number> {
    const db = trx ?? this.db;
    const rows = await db('config_file_revisions').where({ configFileId }).whereNotNull('content').forUpdate()
      .select('id', 'content') as Array<{ id: string; content: string }>;
    let changed = 0;
    for (const r of rows) {
      const content = rewrite(r.content);
      if (content === r.content) continue;
      await db('config_file_revisions').where({ id: r.id }).update({ content });
      changed++;
    }
    return changed;
  }

  async revisions(configFileId: string, page: { limit: number; offset: number }) {
    const base = () => this.db('config_file_revisions').where({ configFileId });
    const [rows, [{ count }]] = await Promise.all([
      base().orderBy('revision', 'desc').limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as ConfigFileRevisionRow[], total: Number(count), ...page };
  }

  async revision(configFileId: string, revision: number): Promise<ConfigFileRevisionRow | undefined> {
    return this.db('config_file_revisions').where({ configFileId, revision }).first();
  }

  /** An environment's templates by name, optionally only `ids`. */
  async templatesOf(environmentId: string, ids?: string[]): Promise<ConfigFileRow[]> {
    const q = this.q().where({ environmentId, kind: 'template' } as never).orderBy('name');
    if (ids) q.whereIn('id', ids);
    return (await q) as ConfigFileRow[];
  }
}
