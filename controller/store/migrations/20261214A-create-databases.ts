import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Databases of an environment: where they run (a server's container, or host/port), their
  // credentials (sealed), backup schedule and retention, and restore-drill schedule.
  await knex.schema.createTable('databases', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.uuid('server_id').references('servers.id').onDelete('SET NULL');
    t.text('container_name');
    t.text('host');
    t.integer('port');
    t.text('database_name').notNullable();
    t.text('username');
    t.text('password_enc');
    t.text('timezone');
    t.boolean('monitoring_enabled').notNullable().defaultTo(false);
    t.integer('collection_interval_sec').notNullable().defaultTo(300);
    t.text('backup_cron');
    t.boolean('backup_enabled').notNullable().defaultTo(false);
    t.timestamp('next_backup_at', { useTz: true });
    t.integer('keep_last');
    t.integer('keep_days');
    t.text('drill_cron');
    t.boolean('drill_enabled').notNullable().defaultTo(false);
    t.text('drill_check_command');
    t.timestamp('next_drill_at', { useTz: true });
    t.integer('generation').notNullable().defaultTo(1);
    t.jsonb('status').notNullable().defaultTo('{}');
    t.jsonb('source').notNullable().defaultTo('{}');
    t.timestamps(true, true);
    t.unique(['environment_id', 'name'], { indexName: 'databases_env_name_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('databases');
}
