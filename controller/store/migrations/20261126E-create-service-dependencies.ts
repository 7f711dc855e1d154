import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('service_dependencies', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('service_id').notNullable().references('services.id').onDelete('CASCADE');
    t.uuid('depends_on_service_id').notNullable().references('services.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['service_id', 'depends_on_service_id'], { indexName: 'service_dependencies_pair_unique' });
  });
  await knex.raw('ALTER TABLE service_dependencies ADD CONSTRAINT service_dependencies_not_self CHECK (service_id <> depends_on_service_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('service_dependencies');
}
