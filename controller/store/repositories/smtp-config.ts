import type { Knex } from 'knex';

/** smtp_config: the single row (id 1) of the outgoing mail server's settings. */
export class SmtpConfigRepository<Row> {
  constructor(private readonly db: Knex) {}

  async find(): Promise<Row | undefined> {
    return (await this.db('smtp_config').where('id', 1).first()) as Row | undefined;
  }

  /** Creates or replaces the row with `values` (and a fresh updatedAt). */
  async save(values: Record<string, unknown>): Promise<Row> {
    const [row] = await this.db('smtp_config').insert({ id: 1, ...values, updatedAt: this.db.fn.now() }).onConflict('id').merge().returning('*');
    return row as Row;
  }
}
