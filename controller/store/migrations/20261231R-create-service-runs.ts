import type { Knex } from 'knex';

// One-off runs of a service (docs/exec.md#one-off-runs): a container from the service's current
// revision with another command, removed when it ends. The row keeps what was observed: its
// status, exit code and the tail of its output (bounded by the runner), and a heartbeat the
// watching controller renews, so a run whose controller died is not left `running`.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('service_id').notNullable().references('id').inTable('services').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('id').inTable('environments').onDelete('CASCADE');
    t.uuid('deployment_id').nullable().references('id').inTable('deployments').onDelete('SET NULL');
    t.uuid('server_id').nullable().references('id').inTable('servers').onDelete('SET NULL');
    t.text('container_name').notNullable();
    t.jsonb('command').notNullable();
    t.text('status').notNullable().defaultTo('running');
    t.integer('exit_code').nullable();
    t.text('log_tail').notNullable().defaultTo('');
    t.text('reason').nullable();
    t.text('created_by').nullable();
    t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true }).nullable();
    t.timestamp('heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['service_id', 'started_at']);
  });
  await knex.raw(`alter table service_runs add constraint service_runs_status_check check (status in ('running', 'succeeded', 'failed'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_runs');
}
