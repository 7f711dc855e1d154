import type { Knex } from 'knex';

// "Which plan in motion has a step of this service" (activeForService, activeForServices) is asked
// for every service a look batch or a plan step touches. Without an index it read every step of
// every plan ever kept: a resync's cost grew with the deploy history as well as with the fleet.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plan_steps', (t) => {
    t.index(['service_id'], 'plan_steps_service_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plan_steps', (t) => {
    t.dropIndex(['service_id'], 'plan_steps_service_id_index');
  });
}
