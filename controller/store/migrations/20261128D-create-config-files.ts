import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A config file is a text template (kind 'template', rendered on sync) or a binary asset
  // (kind 'asset', uploaded by multipart and written as-is).
  await knex.schema.createTable('config_files', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('kind').notNullable().defaultTo('template').checkIn(['template', 'asset']);
    t.text('content');
    t.binary('data');
    t.text('content_type');
    t.text('description');
    t.integer('revision').notNullable().defaultTo(1);
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('source').notNullable().defaultTo(JSON.stringify({ kind: 'api' }));
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'config_files_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_files');
}
