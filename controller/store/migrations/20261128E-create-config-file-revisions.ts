import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Edit history: one row per content version of a config file, for restore.
  await knex.schema.createTable('config_file_revisions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('config_file_id').notNullable().references('config_files.id').onDelete('CASCADE');
    t.integer('revision').notNullable();
    t.text('content');
    t.binary('data');
    t.text('content_type');
    t.text('actor_name');
    t.text('reason').notNullable().defaultTo('update');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['config_file_id', 'revision'], { indexName: 'config_file_revisions_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_file_revisions');
}
