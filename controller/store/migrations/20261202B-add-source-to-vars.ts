import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Where the row came from ({kind: 'api'} or a manifest), as on every other managed table.
  await knex.schema.alterTable('vars', (t) => {
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('vars', (t) => {
    t.dropColumn('source');
  });
}
