import type { ConfigReads } from '../store/repositories/config-reads.js';
import { referencesOf } from './placeholders.js';

/** Config files of the environment that include fragment `name`. */
export async function filesUsingFragment(reads: ConfigReads, environmentId: string, name: string): Promise<Array<{ id: string; name: string }>> {
  const rows = await reads.templatesContaining(environmentId, '${fragment:' + name + '}');
  return rows.filter((r) => referencesOf(r.content).fragments.includes(name)).map((r) => ({ id: r.id, name: r.name }));
}

/** Attachments of those files that were synced at least once: what a fragment change resyncs. */
export async function syncedAttachmentsOf(reads: ConfigReads, configFileIds: string[]): Promise<string[]> {
  if (configFileIds.length === 0) return [];
  return reads.syncedAttachmentsOf(configFileIds);
}

/**
 * Synced attachments of templates including a fragment changed after the attachment's oldest
 * sync: resyncs that were queued in memory when a controller stopped (crash, restart) and so
 * never ran. Level-triggered like the queue itself: running one that was not lost writes nothing.
 */
export async function pendingFragmentResyncs(reads: ConfigReads): Promise<string[]> {
  const [rows, fragments] = await Promise.all([reads.fragmentTemplateSyncs(), reads.fragmentChanges()]);
  const changedAt = new Map(fragments.map((f) => [`${f.environmentId}\0${f.name}`, new Date(f.updatedAt).getTime()]));
  return rows.filter((r) => referencesOf(r.content).fragments
    .some((name) => (changedAt.get(`${r.environmentId}\0${name}`) ?? 0) > new Date(r.oldest).getTime()))
    .map((r) => r.id).sort();
}
