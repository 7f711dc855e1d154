import type { Knex } from 'knex';
import { isVersioned, nameColumnOf, type KindDescriptor } from '../../kinds/kind.js';
import type { ConstraintMessage } from '../translate-error.js';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';

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
  /** `constraints`: what more of the table's constraints mean (a foreign key that still points at a row). */
  constructor(db: Knex, readonly kind: KindDescriptor, constraints: Record<string, ConstraintMessage> = {}) {
    super(db, kind.table!, {
      [`${kind.table}_env_${nameColumnOf(kind) ?? 'name'}_unique`]: {
        message: `A ${nounOf(kind.kind)} with this name already exists in this environment`, field: nameColumnOf(kind) ?? undefined, hint: 'Choose another name',
      },
      ...constraints,
    });
  }

  /** One page of an environment's objects by name, with the total from the same query (one round trip when it has rows). */
  async page(environmentId: string, page: PageQuery): Promise<Page<KindRow>> {
    if (!isUuid(environmentId)) return { items: [], total: 0, limit: page.limit, offset: page.offset };
    const rows = await this.q().where('environmentId', environmentId)
      .select('*', this.db.raw('count(*) over () as full_count'))
      .orderBy([{ column: nameColumnOf(this.kind) ?? 'createdAt' }, { column: 'id' }]).limit(page.limit).offset(page.offset) as unknown as (KindRow & { fullCount: number })[];
    let total = rows[0]?.fullCount;
    if (total === undefined) {
      // past the last page (or none): the count alone
      const [{ count }] = await this.q().where('environmentId', environmentId).count({ count: '*' });
      total = Number(count);
    }
    return { items: rows.map(({ fullCount: _f, ...r }) => r as KindRow), total: Number(total), limit: page.limit, offset: page.offset };
  }

  /** Row columns of (part of) an API body. */
  protected columns(body: Record<string, unknown>): Record<string, unknown> {
    const json = new Set(this.kind.jsonColumns ?? []);
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, json.has(k) && v !== null ? JSON.stringify(v) : v]));
  }

  /** Columns a new object takes unless its body sets them (from its environment's settings). */
  protected async defaults(_trx: Knex.Transaction, _environmentId: string): Promise<Record<string, unknown>> {
    return {};
  }

  /** Checks what a body refers to (throws VALIDATION_ERROR); runs in the write's transaction. */
  protected async check(_trx: Knex.Transaction, _environmentId: string, _body: Record<string, unknown>): Promise<void> {}

  /** Writes what is not a column of the row (side tables), after the row. */
  protected async afterWrite(_trx: Knex.Transaction, _row: KindRow, _body: Record<string, unknown>): Promise<void> {}

  async create(environmentId: string, body: Record<string, unknown>): Promise<KindRow> {
    return this.db.transaction(async (trx) => {
      await this.check(trx, environmentId, body);
      const row = await this.insert({ ...(await this.defaults(trx, environmentId)), ...this.columns(body), environmentId }, trx);
      await this.afterWrite(trx, row, body);
      return row;
    });
  }

  /** `outer`: a transaction of the caller's (a subclass's write that must land with it). */
  async change(row: KindRow, body: Record<string, unknown>, outer?: Knex.Transaction): Promise<KindRow> {
    const run = async (trx: Knex.Transaction) => {
      await this.check(trx, row.environmentId, body);
      const values = this.columns(body);
      if (isVersioned(this.kind)) values.generation = this.nextGeneration();
      const updated = Object.keys(values).length ? await this.update(row.id, values, trx) : row;
      await this.afterWrite(trx, updated!, body);
      return updated!;
    };
    return outer ? run(outer) : this.db.transaction(run);
  }

  async remove(row: KindRow): Promise<void> {
    await this.delete(row.id);
  }

  /** What reads return: the fields the read schema names; a secret only as `has<Field>` (whether one is stored). */
  async present(rows: KindRow[]): Promise<Array<Record<string, unknown>>> {
    const fields = Object.keys((this.kind.schemas!.read.properties ?? {}) as object);
    const flags = (this.kind.secrets ?? []).map((sf) => [`has${sf.field[0].toUpperCase()}${sf.field.slice(1)}`, sf.column] as const)
      .filter(([flag]) => fields.includes(flag));
    return rows.map((r) => ({
      ...Object.fromEntries(fields.filter((f) => f in r).map((f) => [f, r[f]])),
      ...Object.fromEntries(flags.map(([flag, column]) => [flag, !!r[column]])),
    }));
  }
}
