import type { Knex } from 'knex';

/** Row count of every table of the schema (migrations bookkeeping aside), for "nothing changed" checks. */
export async function rowCounts(db: Knex): Promise<Record<string, number>> {
  const { rows } = await db.raw(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename NOT LIKE 'knex_%' ORDER BY 1`);
  const out: Record<string, number> = {};
  for (const { tablename } of rows as { tablename: string }[]) {
    const [{ count }] = await db(tablename).count({ count: '*' });
    out[tablename] = Number(count);
  }
  return out;
}
