import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The Sentry-compatible DSN errors are reported to (sealed: it holds the project's key), and
  // the outcome of the last test event.
  await knex.schema.alterTable('system_settings', (t) => {
    t.text('error_tracking_dsn_enc');
    t.boolean('error_tracking_enabled').notNullable().defaultTo(true);
    t.text('error_tracking_environment');
    t.jsonb('error_tracking_last_test');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('system_settings', (t) => {
    t.dropColumn('error_tracking_dsn_enc');
    t.dropColumn('error_tracking_enabled');
    t.dropColumn('error_tracking_environment');
    t.dropColumn('error_tracking_last_test');
  });
}
