import type { Knex } from 'knex';

// Adoption: the id of a container started outside Stevedore that a deployment took over as it
// runs (a manifest's deployments[].adoptContainerId). Docker cannot add labels to a running
// container, so the id is what makes that one container the deployment's until a rollout
// recreates it under Stevedore's labels (docs/git-sources.md#adopting-what-already-runs).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('deployments', (t) => {
    t.text('adopted_container_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('deployments', (t) => {
    t.dropColumn('adopted_container_id');
  });
}
