import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per health check result (server, container, tcp, cert): what was observed, how long
  // it took and why it failed. Pruned after the system setting healthLogRetentionDays.
  await knex.schema.createTable('health_logs', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('check_key').notNullable();
    t.uuid('server_id').references('servers.id').onDelete('CASCADE');
    t.uuid('deployment_id').references('deployments.id').onDelete('CASCADE');
    t.text('target').notNullable();
    t.text('status').notNullable();
    t.integer('latency_ms').notNullable();
    t.text('error');
    t.jsonb('details').notNullable().defaultTo('{}');
    t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['environment_id', 'checked_at']);
    t.index(['check_key', 'checked_at']);
  });
  // The alert state of each check (the bounce state machine of controller/monitoring/alert-machine.ts),
  // kept so that a restart neither fires an alert again nor forgets one that is down.
  await knex.schema.createTable('alert_states', (t) => {
    t.text('check_key').primary();
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.uuid('server_id').references('servers.id').onDelete('CASCADE');
    t.uuid('deployment_id').references('deployments.id').onDelete('CASCADE');
    t.text('target').notNullable();
    t.text('status').notNullable();
    t.integer('failures').notNullable().defaultTo(0);
    t.integer('successes').notNullable().defaultTo(0);
    t.integer('reminders').notNullable().defaultTo(0);
    t.timestamp('down_since', { useTz: true });
    t.timestamp('last_notified_at', { useTz: true });
    t.text('last_result').notNullable();
    t.text('last_error');
    t.timestamp('last_checked_at', { useTz: true }).notNullable();
    t.index(['environment_id']);
  });
  // Admin overrides of a notification type's alert policy (the catalogue in code holds the defaults).
  await knex.schema.createTable('notification_type_settings', (t) => {
    t.text('code').primary();
    t.integer('bounce_threshold');
    t.integer('recover_threshold');
    t.integer('reminder_interval_sec');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('notification_type_settings');
  await knex.schema.dropTable('alert_states');
  await knex.schema.dropTable('health_logs');
}
