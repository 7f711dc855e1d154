import type { Knex } from 'knex';
import pg from 'pg';
import { camelizeRow } from './case.js';
import { isDatabaseUnavailable, noteDatabaseUnavailable } from './connection-errors.js';
import { clientClassFor } from './database-target.js';

/** Connections of a database handle's hot pool (createKnex), besides its knex pool's. */
export const HOT_POOL_MAX = 4;

interface QueryClient {
  query(q: pg.Query): unknown;
}
interface PooledKnexClient {
  acquireConnection(): Promise<QueryClient>;
  releaseConnection(connection: unknown): Promise<unknown>;
}

const hotPools = new WeakMap<Knex, pg.Pool>();

/**
 * A connection attempt gives up after 10 s (as knex's acquireConnectionTimeout: during an outage
 * callers get an error within seconds). Given to the client, not the pool: pg.Pool would arm a
 * timer for every checkout of a connection as well. Its base class picks the host of a host list.
 */
function timedClient(connectionString: string): typeof pg.Client {
  return class TimedClient extends clientClassFor(connectionString) {
    constructor(config: pg.ClientConfig = {}) {
      super({ ...config, connectionTimeoutMillis: 10_000 });
    }
  };
}

/**
 * Gives `db` a plain pg.Pool for hotQuery, ended when `db` is destroyed. knex's pool (tarn) costs
 * a timer, several promises and its bookkeeping per acquire; the hot reads of every authenticated
 * request (bench/api-floor.ts) take a connection of this one instead. Its connections stay open
 * once made (no idle timer per release); `allowExitOnIdle` lets a process that forgot to destroy
 * `db` exit anyway. An idle connection the server drops is only noted (and replaced on next use).
 */
export function attachHotPool(db: Knex, connectionString: string, max = HOT_POOL_MAX): void {
  const pool = new pg.Pool({
    connectionString, application_name: 'stevedore', max, idleTimeoutMillis: 0, allowExitOnIdle: true, Client: timedClient(connectionString),
  });
  pool.on('error', (e) => {
    if (isDatabaseUnavailable(e)) noteDatabaseUnavailable();
  });
  // a checked-out connection that breaks emits 'error' besides failing its query: without a
  // listener that would be an uncaught exception (pg.Pool listens only while it is idle)
  pool.on('connect', (client) => client.on('error', (e) => {
    if (isDatabaseUnavailable(e)) noteDatabaseUnavailable();
  }));
  hotPools.set(db, pool);
  const client = db.client as { destroy(callback?: unknown): Promise<unknown> };
  const destroy = client.destroy.bind(client);
  let ended: Promise<void> | null = null;
  client.destroy = async (callback?: unknown) => {
    ended ??= pool.end().catch(() => {});
    await ended;
    return destroy(callback);
  };
}

/** A pg.Query built from its text (pg copies a config object's every property descriptor per query). */
function queryOf(sql: { text: string; name?: string }, values: unknown[], done: (err: Error | undefined, rows: Record<string, unknown>[]) => void): pg.Query {
  const query = new pg.Query(sql.text, values, (err, result) => done(err, err ? [] : (result as unknown as pg.QueryResult).rows));
  if (sql.name) (query as unknown as { name: string }).name = sql.name;
  return query;
}

const failed = (e: unknown) => {
  if (isDatabaseUnavailable(e)) noteDatabaseUnavailable();
  return e;
};

/**
 * One fixed SQL text without knex's builder and runner: for the reads every authenticated request
 * makes, where building, compiling and running through knex cost about a fifth of the request's
 * CPU (bench/api-floor.ts). Run on `db`'s hot pool (attachHotPool), else on a connection of its
 * knex pool. A `name` makes it a prepared statement on each connection: PostgreSQL parses and
 * plans it once instead of per request. Rows come back with camelCase keys, as through knex. Not
 * for anything a caller composes, nor inside a transaction. One promise per call: the checkout
 * and the query go through callbacks.
 */
export function hotQuery<T>(db: Knex, sql: { text: string; name?: string }, values: unknown[]): Promise<T[]> {
  const pool = hotPools.get(db);
  if (!pool) return viaKnexPool<T>(db, sql, values);
  return new Promise((resolve, reject) => {
    pool.connect((connectError, client, release) => {
      if (connectError || !client) return reject(failed(connectError));
      try {
        (client as unknown as QueryClient).query(queryOf(sql, values, (err, rows) => {
          // a connection that failed (not the query) must not go back to the pool
          release(err && isDatabaseUnavailable(err) ? err : undefined);
          if (err) reject(failed(err));
          else resolve(rows.map(camelizeRow) as T[]);
        }));
      } catch (e) {
        release(e as Error);
        reject(failed(e));
      }
    });
  });
}

async function viaKnexPool<T>(db: Knex, sql: { text: string; name?: string }, values: unknown[]): Promise<T[]> {
  const knexClient = db.client as unknown as PooledKnexClient;
  try {
    const connection = await knexClient.acquireConnection();
    try {
      const rows = await new Promise<Record<string, unknown>[]>((resolve, reject) => {
        connection.query(queryOf(sql, values, (err, r) => (err ? reject(err) : resolve(r))));
      });
      return rows.map(camelizeRow) as T[];
    } finally {
      await knexClient.releaseConnection(connection);
    }
  } catch (e) {
    throw failed(e);
  }
}
