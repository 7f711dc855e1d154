import type { Knex } from 'knex';

// A service's restart policy (docs/deploys.md#restart-policy): no, always, unless-stopped or
// on-failure[:N], as `docker run --restart` takes it. Every container was created
// unless-stopped until now, so existing services get that and their containers stay as they are.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.text('restart_policy').notNullable().defaultTo('unless-stopped');
  });
  // controller/model/restart-policy.ts's pattern, written without `?` (knex.raw reads it as a binding)
  await knex.raw(`alter table services add constraint services_restart_policy_check
    check (restart_policy ~ '^(no|always|unless-stopped|on-failure|on-failure:[1-9][0-9]{0,3})$')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.dropColumn('restart_policy');
  });
}
