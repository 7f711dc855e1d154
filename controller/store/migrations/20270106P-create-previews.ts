import type { Knex } from 'knex';

// Preview environments per pull request (docs/git-sources.md#previews). A Git source may declare
// `previews` (its JSON, checked by the API). A signed pull_request webhook writes the desired
// preview here (head commit, head ref, open or closed; generation + 1) before it is answered; the
// preview reconciler (`preview/<sourceId>/<number>`) holds the row under a lease like the source's,
// records observed_generation and the conditions in one write per pass, and remembers the preview
// environment it made (environments.parent_environment_id links it to its parent).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('git_sources', (t) => {
    t.jsonb('previews');
  });
  await knex.schema.alterTable('environments', (t) => {
    // a preview environment's parent: its servers (by selector), the secrets it may name and its container policy are the parent's
    t.uuid('parent_environment_id').references('environments.id').onDelete('RESTRICT');
    t.index(['parent_environment_id']);
  });
  await knex.schema.createTable('previews', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('source_id').notNullable().references('git_sources.id').onDelete('CASCADE');
    t.uuid('environment_id').notNullable().references('environments.id').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.text('head_sha').notNullable();
    t.text('head_ref');
    t.boolean('open').notNullable();
    t.text('close_reason');
    t.integer('generation').notNullable().defaultTo(1);
    t.integer('observed_generation');
    t.jsonb('conditions').notNullable().defaultTo('[]');
    t.text('state').notNullable().defaultTo('pending');
    t.text('reason');
    t.uuid('preview_environment_id').references('environments.id').onDelete('SET NULL');
    t.text('applied_commit');
    t.jsonb('plans').notNullable().defaultTo('[]');
    // every server an apply placed it on: its teardown looks there for what is left under its labels
    t.jsonb('server_ids').notNullable().defaultTo('[]');
    t.text('posted_status');
    t.text('lease_owner');
    t.timestamp('lease_until', { useTz: true });
    t.timestamp('desired_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamps(true, true);
    t.unique(['source_id', 'number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('previews');
  await knex.schema.alterTable('environments', (t) => t.dropColumn('parent_environment_id'));
  await knex.schema.alterTable('git_sources', (t) => t.dropColumn('previews'));
}
