import type { Knex } from 'knex';

// How a service's container is replaced (docs/deploys.md): stop-first (the old stops, then the new
// starts) or start-first (the new starts beside the old and takes over its network alias when
// healthy), and how long a start-first switch lets the old one drain before stopping it.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.text('update_order').notNullable().defaultTo('stop-first');
    t.integer('drain_sec').notNullable().defaultTo(5);
  });
  await knex.raw(`alter table services add constraint services_update_order_check check (update_order in ('stop-first', 'start-first'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.dropColumn('update_order');
    t.dropColumn('drain_sec');
  });
}
