import type { Knex } from 'knex';
import { camelizeRow } from './case.js';
import { isDatabaseUnavailable, noteDatabaseUnavailable } from './connection-errors.js';

interface PooledClient {
  acquireConnection(): Promise<{ query(config: { text: string; values: unknown[]; name?: string }): Promise<{ rows: Record<string, unknown>[] }> }>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

/**
 * One fixed SQL text on a connection of the same pool, without knex's builder and runner: for the
 * reads every authenticated request makes, where building, compiling and running through knex
 * cost about a fifth of the request's CPU (bench/api-floor.ts). A `name` makes it a prepared
 * statement on each connection: PostgreSQL parses and plans it once instead of per request.
 * Rows come back with camelCase keys, as through knex. Not for anything a caller composes.
 */
export async function hotQuery<T>(db: Knex, sql: { text: string; name?: string }, values: unknown[]): Promise<T[]> {
  const client = db.client as unknown as PooledClient;
  const connection = await client.acquireConnection();
  try {
    const { rows } = await connection.query({ text: sql.text, name: sql.name, values });
    return rows.map(camelizeRow) as T[];
  } catch (e) {
    if (isDatabaseUnavailable(e)) noteDatabaseUnavailable();
    throw e;
  } finally {
    await client.releaseConnection(connection);
  }
}
