import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Generated compose and env files, kept per deployment. Env content may hold secret values,
  // so it is stored sealed (secretBox) and only ever served redacted.
  await knex.schema.createTable('deployment_artifacts', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('deployment_id').notNullable().references('deployments.id').onDelete('CASCADE');
    t.uuid('plan_id').references('deployment_plans.id').onDelete('SET NULL');
    t.text('kind').notNullable().checkIn(['compose', 'env']);
    t.text('path').notNullable();
    t.text('content');
    t.text('sealed_content');
    t.text('redacted_content').notNullable();
    t.text('sha256').notNullable();
    t.text('image_tag');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['deployment_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deployment_artifacts');
}
