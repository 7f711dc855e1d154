import type { Knex } from 'knex';

// What the image reconciler needs: the version policy (a field of the ContainerImage kind), the
// result of the last check, and the version whose auto-update failed and rolled back (tag and
// digest), which is not tried again until a newer one appears.
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE container_images ADD COLUMN IF NOT EXISTS policy jsonb');
  await knex.raw('ALTER TABLE container_images ADD COLUMN IF NOT EXISTS latest_tag text');
  await knex.raw('ALTER TABLE container_images ADD COLUMN IF NOT EXISTS last_checked_at timestamptz');
  await knex.raw('ALTER TABLE container_images ADD COLUMN IF NOT EXISTS failed_tag text');
  await knex.raw('ALTER TABLE container_images ADD COLUMN IF NOT EXISTS failed_digest text');
  await knex.raw('CREATE INDEX IF NOT EXISTS image_digests_image_tag_seen ON image_digests (container_image_id, tag, last_seen_at DESC)');
}

export async function down(knex: Knex): Promise<void> {
  for (const c of ['policy', 'latest_tag', 'last_checked_at', 'failed_tag', 'failed_digest']) {
    await knex.raw(`ALTER TABLE container_images DROP COLUMN IF EXISTS ${c}`);
  }
}
