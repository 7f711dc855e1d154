import type { Knex } from 'knex';

// Revisions (docs/revisions.md): every accepted change of what a service's containers should be
// is a numbered, immutable row holding the whole rendered container spec of each deployment
// (secrets as references and versions, never values). The service records which revision is
// desired, which last fully succeeded and which failed; a deployment records the revision its
// container runs; a plan step the revision it rolls out and the one it replaced (its rollback).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_revisions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('service_id').notNullable().references('id').inTable('services').onDelete('CASCADE');
    t.uuid('environment_id').notNullable();
    t.integer('revision').notNullable();
    t.jsonb('spec').notNullable();
    t.text('spec_hash').notNullable();
    t.text('source').notNullable();
    t.text('created_by');
    t.text('outcome').notNullable().defaultTo('pending');
    t.text('reason');
    t.integer('reverted_from');
    t.uuid('plan_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['service_id', 'revision']);
  });
  await knex.raw(`alter table service_revisions add constraint service_revisions_outcome_check
    check (outcome in ('pending', 'succeeded', 'failed', 'superseded'))`);
  await knex.schema.alterTable('services', (t) => {
    t.integer('desired_revision');
    t.integer('current_revision');
    t.integer('failed_revision');
    t.text('failed_reason');
  });
  await knex.schema.alterTable('deployments', (t) => {
    t.integer('revision');
  });
  await knex.schema.alterTable('plan_steps', (t) => {
    t.integer('revision');
    t.integer('previous_revision');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('plan_steps', (t) => {
    t.dropColumn('revision');
    t.dropColumn('previous_revision');
  });
  await knex.schema.alterTable('deployments', (t) => t.dropColumn('revision'));
  await knex.schema.alterTable('services', (t) => {
    for (const c of ['desired_revision', 'current_revision', 'failed_revision', 'failed_reason']) t.dropColumn(c);
  });
  await knex.schema.dropTable('service_revisions');
}
