import type { Knex } from 'knex';

// Where a service is reached from outside (docs/ingress.md): hosts, container port, path, TLS and
// the redirect, as controller/model/ingress.ts reads them. null: no ingress, no proxy route.
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.jsonb('ingress').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('services', (t) => {
    t.dropColumn('ingress');
  });
}
