import type { Knex } from 'knex';
import type { MigrationContext } from '../migrator.js';
import { openHeaders, sealHeaders, type SealedHeaders } from '../../delivery/sealed-headers.js';
import type { SecretBox } from '../../crypto/secret-box.js';

// Custom header values of outgoing webhooks were stored, and read back, in clear; they are
// write-only now: every stored value is sealed with the secret box (the column keeps its shape,
// {name: value}, with sealed values).
const TABLES = ['webhook_subscriptions', 'outgoing_webhooks'];

/** Rewrites every non-empty header map of both tables with `change`. */
async function rewrite(knex: Knex, box: SecretBox | undefined, what: string, change: (box: SecretBox, headers: SealedHeaders) => unknown) {
  for (const table of TABLES) {
    const rows = await knex(table).select('id', 'headers').whereRaw("headers <> '{}'::jsonb");
    if (rows.length && !box) throw new Error(`${what} the header values of ${table} needs the secret box`);
    for (const row of rows) await knex(table).where({ id: row.id }).update({ headers: JSON.stringify(change(box!, row.headers)) });
  }
}

export async function up(knex: Knex, { secretBox }: MigrationContext = {}): Promise<void> {
  await rewrite(knex, secretBox, 'sealing', sealHeaders);
}

export async function down(knex: Knex, { secretBox }: MigrationContext = {}): Promise<void> {
  await rewrite(knex, secretBox, 'opening', openHeaders);
}
