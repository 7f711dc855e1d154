import type { Knex } from 'knex';
import { referencesOf } from './placeholders.js';

/** Config files of the environment that include fragment `name`. */
export async function filesUsingFragment(db: Knex, environmentId: string, name: string): Promise<Array<{ id: string; name: string }>> {
  const needle = '${fragment:' + name + '}';
  const rows = await db('config_files').where({ environmentId, kind: 'template' })
    .andWhereRaw('position(? in content) > 0', [needle]).select('id', 'name', 'content').orderBy('name');
  return rows.filter((r: { content: string }) => referencesOf(r.content).fragments.includes(name))
    .map((r: { id: string; name: string }) => ({ id: r.id, name: r.name }));
}

/** Attachments of those files that were synced at least once: what a fragment change resyncs. */
export async function syncedAttachmentsOf(db: Knex, configFileIds: string[]): Promise<string[]> {
  if (configFileIds.length === 0) return [];
  const rows = await db('config_attachments').whereIn('configFileId', configFileIds)
    .whereExists(db('config_sync_states').whereRaw('config_sync_states.attachment_id = config_attachments.id'))
    .select('id').orderBy('id');
  return rows.map((r: { id: string }) => r.id);
}
