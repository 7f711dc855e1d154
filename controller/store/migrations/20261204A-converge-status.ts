import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Status that reconcilers compute from observation: which generation they last looked at, and
  // conditions (Ready, Drifted, Degraded, ...). Deployments also remember the generation whose
  // rollout failed (so heal does not retry it) and the hash of the spec last converged.
  await knex.schema.alterTable('deployments', (t) => {
    t.integer('observed_generation');
    t.integer('failed_generation');
    t.text('spec_hash');
  });
  await knex.schema.alterTable('services', (t) => {
    t.integer('observed_generation');
    t.jsonb('conditions').notNullable().defaultTo('[]');
  });
  await knex.schema.alterTable('servers', (t) => {
    t.integer('observed_generation');
    t.jsonb('conditions').notNullable().defaultTo('[]');
  });
  await knex.schema.alterTable('config_attachments', (t) => {
    t.integer('generation').notNullable().defaultTo(1);
    t.integer('observed_generation');
    t.jsonb('conditions').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('config_attachments', (t) => {
    t.dropColumns('generation', 'observed_generation', 'conditions');
  });
  await knex.schema.alterTable('servers', (t) => {
    t.dropColumns('observed_generation', 'conditions');
  });
  await knex.schema.alterTable('services', (t) => {
    t.dropColumns('observed_generation', 'conditions');
  });
  await knex.schema.alterTable('deployments', (t) => {
    t.dropColumns('observed_generation', 'failed_generation', 'spec_hash');
  });
}
