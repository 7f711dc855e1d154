import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A config file placed at an absolute path on every server the service is deployed on.
  await knex.schema.createTable('config_attachments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('config_file_id').notNullable().references('config_files.id').onDelete('CASCADE');
    t.uuid('service_id').notNullable().references('services.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('target_path').notNullable();
    t.integer('mode');
    t.timestamps(true, true);
    t.unique(['service_id', 'target_path'], { indexName: 'config_attachments_service_path_unique' });
    t.index(['config_file_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('config_attachments');
}
