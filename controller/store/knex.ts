import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { camelizeRow, toSnake } from './case.js';

// bigint counts come back as strings by default; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;
export type Trx = Knex.Transaction;

export function createKnex(connectionString: string, poolMax = 10): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString, application_name: 'stevedore' },
    pool: { min: 0, max: poolMax },
    wrapIdentifier: (value, origImpl) => origImpl(value === '*' ? value : toSnake(value)),
    postProcessResponse: (result) => {
      if (Array.isArray(result)) return result.map(camelizeRow);
      if (result && typeof result === 'object' && 'rows' in result) return result;
      return camelizeRow(result);
    },
  });
}

/** Whether the database answers a trivial query, for /health. */
export async function databaseAnswers(db: Db): Promise<boolean> {
  try {
    await db.raw('select 1');
    return true;
  } catch {
    return false;
  }
}
