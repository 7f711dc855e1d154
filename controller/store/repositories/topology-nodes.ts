import type { Knex } from 'knex';

/** Where the nodes of each topology kind are; databases only once their table exists. */
export const NODE_TABLES: Record<string, string> = {
  Server: 'servers', Service: 'services', Database: 'databases', ExternalEntity: 'external_entities',
};

/** The node tables that exist in this database (the databases table comes with a later migration). */
export async function nodeTables(db: Knex | Knex.Transaction): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [kind, table] of Object.entries(NODE_TABLES)) if (await db.schema.hasTable(table)) out[kind] = table;
  return out;
}

/** Whether a node of that kind and id exists in the environment. */
export async function nodeExists(db: Knex | Knex.Transaction, environmentId: string, kind: string, id: string): Promise<boolean> {
  const table = (await nodeTables(db))[kind];
  if (!table) return false;
  return !!(await db(table).where({ id, environmentId }).first('id'));
}
