import type { Knex } from 'knex';

// A container whose deployment a manifest pruned is removed by a plan step (visible, cancellable
// before it starts) instead of outside any plan. Its deployment row is gone by then, so the step
// keeps the id the container's ownership label must carry.
export async function up(knex: Knex): Promise<void> {
  const { rows } = await knex.raw(`select conname from pg_constraint where conrelid = 'plan_steps'::regclass and contype = 'c'
    and pg_get_constraintdef(oid) like '%action%'`);
  for (const r of rows as Array<{ conname: string }>) await knex.raw('alter table plan_steps drop constraint ??', [r.conname]);
  await knex.raw(`alter table plan_steps add constraint plan_steps_action_check check (action in ('deploy', 'restart', 'remove'))`);
  await knex.schema.alterTable('plan_steps', (t) => t.uuid('removed_deployment_id'));
}

export async function down(knex: Knex): Promise<void> {
  await knex('plan_steps').where({ action: 'remove' }).delete();
  await knex.raw('alter table plan_steps drop constraint plan_steps_action_check');
  await knex.raw(`alter table plan_steps add constraint plan_steps_action_check check (action in ('deploy', 'restart'))`);
  await knex.schema.alterTable('plan_steps', (t) => t.dropColumn('removed_deployment_id'));
}
