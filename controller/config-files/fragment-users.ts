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

/**
 * Synced attachments of templates including a fragment changed after the attachment's oldest
 * sync: resyncs that were queued in memory when a controller stopped (crash, restart) and so
 * never ran. Level-triggered like the queue itself: running one that was not lost writes nothing.
 */
export async function pendingFragmentResyncs(db: Knex): Promise<string[]> {
  const [rows, fragments] = await Promise.all([
    db('config_attachments').join('config_files', 'config_files.id', 'config_attachments.configFileId')
      .join('config_sync_states', 'config_sync_states.attachmentId', 'config_attachments.id')
      .where('config_files.kind', 'template').andWhereRaw("position('${fragment:' in config_files.content) > 0")
      .groupBy('config_attachments.id', 'config_files.environmentId', 'config_files.content')
      .select('config_attachments.id', 'config_files.environmentId', 'config_files.content')
      .min({ oldest: 'config_sync_states.syncedAt' }),
    db('config_fragments').select('environmentId', 'name', 'updatedAt'),
  ]) as [Array<{ id: string; environmentId: string; content: string; oldest: Date }>, Array<{ environmentId: string; name: string; updatedAt: Date }>];
  const changedAt = new Map(fragments.map((f) => [`${f.environmentId}\0${f.name}`, new Date(f.updatedAt).getTime()]));
  return rows.filter((r) => referencesOf(r.content).fragments
    .some((name) => (changedAt.get(`${r.environmentId}\0${name}`) ?? 0) > new Date(r.oldest).getTime()))
    .map((r) => r.id).sort();
}
