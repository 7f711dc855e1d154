import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Digests seen for an image (after a pull or a registry check): which tag pointed where, when.
  await knex.schema.createTable('image_digests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('container_image_id').notNullable().references('container_images.id').onDelete('CASCADE');
    t.text('tag').notNullable();
    t.text('digest').notNullable();
    t.timestamp('first_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['container_image_id', 'tag', 'digest'], { indexName: 'image_digests_image_tag_digest_unique' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('image_digests');
}
