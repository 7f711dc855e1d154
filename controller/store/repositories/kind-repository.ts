import type { Knex } from 'knex';
import { isVersioned, nameColumnOf, type KindDescriptor } from '../../kinds/kind.js';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';

export type KindRow = { id: string; environmentId: string; source?: unknown } & Record<string, any>;

/** 'ExternalEntity' -> 'external entity': how messages name a kind. */
export const nounOf = (kind: string) => kind.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

/**
 * The store side of the generic CRUD routes (api/routes/kind-crud.ts): a kind's table read and
 * written from its descriptor alone. An API body's fields are its columns (JSON columns as
 * text) and a read is the row's fields that the read schema names. A kind whose API fields are
 * not its columns (members in a side table, ends stored as kind and id) subclasses this and
 * registers in kind-repositories.ts.
 */
export class KindRepository extends BaseRepository<KindRow> {
  constructor(db: Knex, readonly kind: KindDescriptor) {
    super(db, kind.table!, {
      [`${kind.table}_env_name_unique`]: `A ${nounOf(kind.kind)} with this name already exists in the environment`,
    });
  }

  /** One page of an environment's objects, by name. */
  page(environmentId: string, page: PageQuery): Promise<Page<KindRow>> {
    return this.list({ environmentId }, page, nameColumnOf(this.kind) ?? 'createdAt');
  }

  /** Row columns of (part of) an API body. */
  protected columns(body: Record<string, unknown>): Record<string, unknown> {
    const json = new Set(this.kind.jsonColumns ?? []);
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, json.has(k) && v !== null ? JSON.stringify(v) : v]));
  }

  /** Checks what a body refers to (throws VALIDATION_ERROR); runs in the write's transaction. */
  protected async check(_trx: Knex.Transaction, _environmentId: string, _body: Record<string, unknown>): Promise<void> {}

  /** Writes what is not a column of the row (side tables), after the row. */
  protected async afterWrite(_trx: Knex.Transaction, _row: KindRow, _body: Record<string, unknown>): Promise<void> {}

  async create(environmentId: string, body: Record<string, unknown>): Promise<KindRow> {
    return this.db.transaction(async (trx) => {
      await this.check(trx, environmentId, body);
      const row = await this.insert({ ...this.columns(body), environmentId }, trx);
      await this.afterWrite(trx, row, body);
      return row;
    });
  }

  async change(row: KindRow, body: Record<string, unknown>): Promise<KindRow> {
    return this.db.transaction(async (trx) => {
      await this.check(trx, row.environmentId, body);
      const values = this.columns(body);
      if (isVersioned(this.kind)) values.generation = this.nextGeneration();
      const updated = Object.keys(values).length ? await this.update(row.id, values, trx) : row;
      await this.afterWrite(trx, updated!, body);
      return updated!;
    });
  }

  async remove(row: KindRow): Promise<void> {
    await this.delete(row.id);
  }

  /** What reads return: the fields the read schema names. */
  async present(rows: KindRow[]): Promise<Array<Record<string, unknown>>> {
    const fields = Object.keys((this.kind.schemas!.read.properties ?? {}) as object);
    return rows.map((r) => Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, r[f]])));
  }
}
