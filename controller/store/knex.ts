import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { camelizeRow, toSnake } from './case.js';
import { isDatabaseUnavailable, noteDatabaseUnavailable } from './connection-errors.js';
import { clientClassFor } from './database-target.js';
import { attachHotPool } from './hot-query.js';

// bigint counts come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;
export type Trx = Knex.Transaction;

export function createKnex(connectionString: string, poolMax = 10): Knex {
  const db = knexFactory({
    client: 'pg',
    connection: { connectionString, application_name: 'stevedore' },
    pool: { min: 0, max: poolMax },
    // A query waits at most this long for a connection: during a database outage callers get an
    // error (503, a loop's backoff) within seconds instead of hanging for knex's default minute.
    acquireConnectionTimeout: 10_000,
    // knex prints every failed connection attempt on its own; the callers log an outage once.
    log: { warn: quiet, error: quiet, debug: quiet, deprecate: quiet },
    wrapIdentifier: (value, origImpl) => origImpl(value === '*' ? value : toSnake(value)),
    postProcessResponse: (result) => {
      if (Array.isArray(result)) return result.map(camelizeRow);
      if (result && typeof result === 'object' && 'rows' in result) return result;
      return camelizeRow(result);
    },
  });
  // knex's PostgreSQL dialect makes its connections with `new driver.Client(settings)`: with a host
  // list in the URL, the client class that picks the writable host (database-target.ts)
  const knexClient = db.client as { driver: typeof pg };
  if (clientClassFor(connectionString) !== pg.Client) knexClient.driver = { ...pg, Client: clientClassFor(connectionString) } as typeof pg;
  db.on('query-error', (e: unknown) => {
    if (isDatabaseUnavailable(e)) noteDatabaseUnavailable();
  });
  (db.client as { pool?: { on(ev: string, fn: (...a: unknown[]) => void): void } }).pool?.on('createFail', () => noteDatabaseUnavailable());
  attachHotPool(db, connectionString);
  return db;
}

function quiet(): void {}

/** Whether the database answers a trivial query, for /health. */
export async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await db.raw('select 1');
    return true;
  } catch {
    return false;
  }
}

/**
 * Transactions committed in this database so far (pg_stat_database; a statement outside a
 * transaction counts as one), for benches that count what a piece of work costs the database.
 * The statistics collector publishes within about a second of the commit.
 */
export async function transactionsCommitted(db: Db): Promise<number> {
  await db.raw('select pg_stat_clear_snapshot()');
  const { rows } = await db.raw('select xact_commit from pg_stat_database where datname = current_database()');
  return Number(rows[0].xact_commit);
}

/** Rows read by sequential scans so far, by table, in the handle's database (benches: a scan per batch shows as rows that grow with the fleet). */
export async function sequentialRowsRead(db: Db): Promise<Map<string, number>> {
  await db.raw('select pg_stat_clear_snapshot()');
  const { rows } = await db.raw('select relname, seq_tup_read from pg_stat_user_tables');
  return new Map((rows as Array<{ relname: string; seq_tup_read: string }>).map((r) => [r.relname, Number(r.seq_tup_read)]));
}
