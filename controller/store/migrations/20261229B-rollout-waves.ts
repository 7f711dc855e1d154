import type { Knex } from 'knex';

// Progressive delivery (docs/progressive-delivery.md): a service's rollout (strategy, waves,
// analysis), and the waves of a plan as they run: each step's wave, the plan's wave definitions,
// where it is (wave, phase, pause deadline), the analysis results, and an operator's pause and
// promote. All persisted, so a restarted controller resumes a paused or analysing plan.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.jsonb('rollout');
  });
  await knex.schema.alterTable('deployment_plans', (t) => {
    t.jsonb('waves');
    t.jsonb('wave_state');
    t.jsonb('analysis').notNullable().defaultTo('[]');
    t.boolean('pause_requested').notNullable().defaultTo(false);
    t.integer('promoted_wave');
  });
  await knex.schema.alterTable('plan_steps', (t) => {
    t.integer('wave');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plan_steps', (t) => t.dropColumn('wave'));
  await knex.schema.alterTable('deployment_plans', (t) => {
    t.dropColumn('waves');
    t.dropColumn('wave_state');
    t.dropColumn('analysis');
    t.dropColumn('pause_requested');
    t.dropColumn('promoted_wave');
  });
  await knex.schema.alterTable('services', (t) => t.dropColumn('rollout'));
}
