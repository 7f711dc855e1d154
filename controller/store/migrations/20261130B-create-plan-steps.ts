import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One action of a plan on one deployment, with its log and timings as they happen.
  await knex.schema.createTable('plan_steps', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('plan_id').notNullable().references('deployment_plans.id').onDelete('CASCADE');
    t.integer('position').notNullable();
    // Steps of one stage (a service in dependency order) may run together; stages run in order.
    t.integer('stage').notNullable().defaultTo(0);
    t.text('action').notNullable().defaultTo('deploy').checkIn(['deploy', 'restart']);
    t.uuid('service_id').references('services.id').onDelete('SET NULL');
    t.uuid('deployment_id').references('deployments.id').onDelete('SET NULL');
    t.uuid('server_id').references('servers.id').onDelete('SET NULL');
    t.text('container_name').notNullable();
    t.text('status').notNullable().defaultTo('pending').checkIn(
      ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled', 'rolled_back']);
    t.text('image_tag');
    t.text('previous_image_tag');
    t.text('mode');
    t.text('log').notNullable().defaultTo('');
    t.text('error');
    t.text('rollback_error');
    t.timestamp('started_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.timestamps(true, true);
    t.unique(['plan_id', 'position'], { indexName: 'plan_steps_plan_position_unique' });
    t.index(['deployment_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('plan_steps');
}
