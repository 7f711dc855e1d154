import type { Knex } from 'knex';

// Columns the entrance and the plan engine write. Some are also added by 20261204A (the desired
// spec work): IF NOT EXISTS lets either migration land first without the other failing.
export async function up(knex: Knex): Promise<void> {
  // The generation whose rollout failed: reconcilers never retry it on their own; a new request does.
  await knex.raw('ALTER TABLE deployments ADD COLUMN IF NOT EXISTS failed_generation integer');
  await knex.raw('ALTER TABLE deployments ADD COLUMN IF NOT EXISTS observed_generation integer');
  await knex.raw("ALTER TABLE services ADD COLUMN IF NOT EXISTS conditions jsonb NOT NULL DEFAULT '[]'");
  await knex.raw('ALTER TABLE services ADD COLUMN IF NOT EXISTS observed_generation integer');
  // A newer desired state for the same service: the plan stops at its next step boundary.
  await knex.raw('ALTER TABLE deployment_plans ADD COLUMN IF NOT EXISTS superseded_by uuid');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE deployment_plans DROP COLUMN IF EXISTS superseded_by');
}
