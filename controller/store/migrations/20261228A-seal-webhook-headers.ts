import type { Knex } from 'knex';
import type { MigrationContext } from '../migrator.js';
import { openHeaders, sealHeaders } from '../../delivery/sealed-headers.js';

// Custom header values of outgoing webhooks were stored, and read back, in clear; they are
// write-only now: every stored value is sealed with the secret box (the column keeps its shape,
// {name: value}, with sealed values).
const TABLES = ['webhook_subscriptions', 'outgoing_webhooks'];

export async function up(knex: Knex, { secretBox }: MigrationContext = {}): Promise<void> {
  for (const table of TABLES) {
    const rows = await knex(table).select('id', 'headers').whereRaw("headers <> '{}'::jsonb");
    if (rows.length && !secretBox) throw new Error(`sealing the header values of ${table} needs the secret box`);
    for (const row of rows) {
      await knex(table).where({ id: row.id }).update({ headers: JSON.stringify(sealHeaders(secretBox!, row.headers)) });
    }
  }
}

export async function down(knex: Knex, { secretBox }: MigrationContext = {}): Promise<void> {
  for (const table of TABLES) {
    const rows = await knex(table).select('id', 'headers').whereRaw("headers <> '{}'::jsonb");
    if (rows.length && !secretBox) throw new Error(`opening the header values of ${table} needs the secret box`);
    for (const row of rows) {
      await knex(table).where({ id: row.id }).update({ headers: JSON.stringify(openHeaders(secretBox!, row.headers)) });
    }
  }
}
