import type { Knex } from 'knex';

// Progressive delivery (docs/progressive-delivery.md): servers carry labels ({key: value}) and a
// service may be placed by a selector over them instead of a list of deployments.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('servers', (t) => {
    t.jsonb('labels').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('services', (t) => {
    t.jsonb('server_selector');
  });
  await knex.raw('create index servers_labels_gin on servers using gin (labels jsonb_path_ops)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => t.dropColumn('server_selector'));
  await knex.schema.alterTable('servers', (t) => t.dropColumn('labels'));
}
