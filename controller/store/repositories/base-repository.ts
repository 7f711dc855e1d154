import type { Knex } from 'knex';
import { translateDbError, type ConstraintMessage } from '../translate-error.js';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);

export interface Page<T> { items: T[]; total: number; limit: number; offset: number }
export interface PageQuery { limit: number; offset: number }

/**
 * Generic access to one table. Rows come back camelCased (see store/knex.ts). Every method
 * takes an optional transaction so a caller can group writes.
 */
export class BaseRepository<Row extends { id: string }> {
  constructor(
    protected readonly db: Knex,
    readonly table: string,
    /** constraint name -> message, for unique and foreign-key violations */
    protected readonly constraintMessages: Record<string, ConstraintMessage> = {},
  ) {}

  protected q(trx?: Knex | Knex.Transaction) {
    return (trx ?? this.db)<Row>(this.table);
  }

  protected async guard<T>(op: Promise<T>): Promise<T> {
    try {
      return await op;
    } catch (e) {
      throw translateDbError(e, this.constraintMessages);
    }
  }

  async findById(id: string, trx?: Knex.Transaction): Promise<Row | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.q(trx).where('id', id).first()) as Row | undefined;
  }

  /** The rows of these ids that exist (in no particular order): one query for a batch. */
  async findByIds(ids: string[], trx?: Knex.Transaction): Promise<Row[]> {
    const valid = [...new Set(ids.filter(isUuid))];
    if (!valid.length) return [];
    return (await this.q(trx).whereIn('id', valid)) as Row[];
  }

  async findOne(where: Partial<Row>, trx?: Knex.Transaction): Promise<Row | undefined> {
    return (await this.q(trx).where(where as never).first()) as Row | undefined;
  }

  async list(where: Partial<Row>, page: PageQuery, orderBy = 'createdAt', trx?: Knex.Transaction): Promise<Page<Row>> {
    const [rows, [{ count }]] = await Promise.all([
      this.q(trx).where(where as never).orderBy([{ column: orderBy }, { column: 'id' }]).limit(page.limit).offset(page.offset),
      this.q(trx).where(where as never).count({ count: '*' }),
    ]);
    return { items: rows as Row[], total: Number(count), limit: page.limit, offset: page.offset };
  }

  async insert(values: Partial<Row>, trx?: Knex.Transaction): Promise<Row> {
    const [row] = await this.guard(this.q(trx).insert(values as never).returning('*'));
    return row as Row;
  }

  /**
   * Many rows, a few hundred per statement (seeding, bulk imports): one round trip per chunk
   * instead of one per row. Returns the inserted rows (match them by a unique column, not by position).
   */
  async insertMany(values: Array<Partial<Row>>, trx?: Knex.Transaction, chunkSize = 500): Promise<Row[]> {
    const out: Row[] = [];
    for (let i = 0; i < values.length; i += chunkSize) {
      out.push(...(await this.guard(this.q(trx).insert(values.slice(i, i + chunkSize) as never).returning('*'))) as Row[]);
    }
    return out;
  }

  async update(id: string, values: Partial<Row>, trx?: Knex.Transaction): Promise<Row | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.guard(
      this.q(trx).where('id', id).update({ ...values, updatedAt: this.db.fn.now() } as never).returning('*'),
    );
    return row as Row | undefined;
  }

  /**
   * `generation + 1` computed by the database, so two concurrent spec writes both count
   * (a value read earlier and incremented in code could lose one).
   */
  protected nextGeneration(): never {
    return this.db.raw('?? + 1', ['generation']) as never;
  }

  async delete(id: string, trx?: Knex.Transaction): Promise<boolean> {
    if (!isUuid(id)) return false;
    const n = await this.guard(this.q(trx).where('id', id).delete());
    return n > 0;
  }
}
