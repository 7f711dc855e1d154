import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Things services talk to that Stevedore does not run (topology nodes).
  await knex.schema.createTable('external_entities', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.text('url');
    t.text('description');
    t.jsonb('attributes').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'external_entities_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('external_entities');
}
