import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Reusable snippets that config files include with ${fragment:NAME}.
  await knex.schema.createTable('config_fragments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('content').notNullable();
    t.text('description');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'config_fragments_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_fragments');
}
