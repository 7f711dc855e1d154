import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('registry_connections', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('type').notNullable().checkIn(['cloudhost', 'containerhub', 'generic']);
    t.text('registry_url').notNullable();
    t.text('repository_prefix');
    t.text('username');
    t.text('token_enc');
    t.text('password_enc');
    t.boolean('is_default').notNullable().defaultTo(false);
    t.integer('refresh_interval_minutes').notNullable().defaultTo(60);
    t.text('auto_link_pattern');
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'registry_connections_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('registry_connections');
}
