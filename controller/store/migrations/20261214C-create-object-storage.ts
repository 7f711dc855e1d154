import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The global S3-compatible object storage (one row), secret key sealed.
  await knex.schema.createTable('object_storage', (t) => {
    t.integer('id').primary();
    t.text('endpoint').notNullable();
    t.text('region').notNullable();
    t.text('bucket').notNullable();
    t.text('access_key_id').notNullable();
    t.text('secret_access_key_enc').notNullable();
    t.boolean('force_path_style').notNullable().defaultTo(true);
    t.timestamps(true, true);
  });
  // Per environment: whether its backups go to object storage, and to which bucket and prefix.
  await knex.schema.createTable('environment_storage', (t) => {
    t.uuid('environment_id').primary().references('environments.id').onDelete('CASCADE');
    t.boolean('enabled').notNullable().defaultTo(false);
    t.text('bucket');
    t.text('prefix');
    t.timestamps(true, true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('environment_storage');
  await knex.schema.dropTable('object_storage');
}
