import type { Knex } from 'knex';

// An environment's manifests may come from a Git repository (docs/git-sources.md): one source per
// environment, its credentials sealed like every secret, the host key of an ssh remote pinned on
// first use, and what the last fetch and apply found (the status is rebuilt from these columns on
// any replica). The environment's age identity decrypts the SOPS files of its source.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('git_sources', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('environment_id').notNullable().unique().references('id').inTable('environments').onDelete('CASCADE');
    t.text('url').notNullable();
    t.text('ref');
    t.text('path').notNullable().defaultTo('.');
    t.integer('poll_interval_sec').notNullable().defaultTo(60);
    t.boolean('prune').notNullable().defaultTo(false);
    t.text('ssh_private_key_sealed');
    t.text('username');
    t.text('token_sealed');
    t.text('known_hosts');
    // bumped by every PUT: an applied commit of an older configuration is OutOfSync
    t.integer('generation').notNullable().defaultTo(1);
    t.timestamp('syncing_since', { useTz: true });
    t.timestamp('last_fetch_at', { useTz: true });
    t.text('fetched_commit');
    t.jsonb('applied_revision');
    t.integer('applied_generation');
    t.jsonb('last_attempt');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('environment_age_keys', (t) => {
    t.uuid('environment_id').primary().references('id').inTable('environments').onDelete('CASCADE');
    t.text('identity_sealed').notNullable();
    t.text('recipient').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('environment_age_keys');
  await knex.schema.dropTable('git_sources');
}
