import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Declared links between topology nodes. An end is a kind and an id of that kind's table, so
  // there is no foreign key: reads drop ends whose node is gone.
  await knex.schema.createTable('connections', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('from_kind').notNullable();
    t.uuid('from_id').notNullable();
    t.text('to_kind').notNullable();
    t.uuid('to_id').notNullable();
    t.text('label');
    t.integer('port');
    t.text('protocol');
    t.text('description');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'connections_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('connections');
}
