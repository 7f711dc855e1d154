import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A deployment plan: ordered steps over deployments, executed and persisted step by step.
  await knex.schema.createTable('deployment_plans', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('status').notNullable().defaultTo('pending').checkIn(
      ['pending', 'running', 'succeeded', 'failed', 'cancelled', 'rolling_back', 'rolled_back', 'rollback_failed']);
    t.text('strategy').notNullable().defaultTo('rolling').checkIn(['rolling', 'parallel']);
    t.boolean('auto_rollback').notNullable().defaultTo(true);
    t.boolean('pull_image').notNullable().defaultTo(true);
    t.boolean('generate_artifacts').notNullable().defaultTo(true);
    // Where the plan came from: api, deploy (route), webhook, drift-heal.
    t.text('trigger').notNullable().defaultTo('api');
    t.jsonb('items').notNullable().defaultTo('[]');
    t.boolean('cancel_requested').notNullable().defaultTo(false);
    // Lease of the process executing the plan; a stale heartbeat means that process died.
    t.text('owner');
    t.timestamp('heartbeat_at', { useTz: true });
    t.text('error');
    t.text('created_by');
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamps(true, true);
    t.index(['environment_id', 'created_at']);
    t.index(['status']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deployment_plans');
}
