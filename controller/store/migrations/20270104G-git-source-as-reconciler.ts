import type { Knex } from 'knex';

// A Git source is reconciled like every kind (docs/git-sources.md#a-durable-sync): a push or a
// sync asked for is a desired state written here (generation + 1, what asked and when, the commit
// a push named) before it is answered; the reconciler records observed_generation and the
// conditions in one write at the end of each pass. A pass holds the row under a lease (owner and
// expiry) renewed while it runs: a process that dies mid-sync leaves it to whoever looks once the
// lease ran out, and the source is never shown Syncing past it. A source may name its code host
// (its API root and a sealed token) to post commit statuses; commit_status is the last one posted
// and the plans it waits for, so the final one is posted once, by whichever replica sees them end.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('git_sources', (t) => {
    t.timestamp('requested_at', { useTz: true });
    t.text('requested_trigger');
    t.text('requested_commit');
    t.integer('observed_generation');
    t.jsonb('conditions').notNullable().defaultTo('[]');
    t.text('lease_owner');
    t.timestamp('lease_until', { useTz: true });
    t.dropColumn('syncing_since');
    t.text('code_host_type');
    t.text('code_host_api_url');
    t.text('code_host_token_sealed');
    t.jsonb('commit_status');
  });
  // sources synced before keep their state: what they applied was observed at their generation
  await knex('git_sources').whereNotNull('last_attempt').update({ observed_generation: knex.ref('generation') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('git_sources', (t) => {
    t.dropColumn('requested_at');
    t.dropColumn('requested_trigger');
    t.dropColumn('requested_commit');
    t.dropColumn('observed_generation');
    t.dropColumn('conditions');
    t.dropColumn('lease_owner');
    t.dropColumn('lease_until');
    t.dropColumn('code_host_type');
    t.dropColumn('code_host_api_url');
    t.dropColumn('code_host_token_sealed');
    t.dropColumn('commit_status');
    t.timestamp('syncing_since', { useTz: true });
  });
}
