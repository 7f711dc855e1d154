import type { Services } from '../services.js';
import { isAppError } from '../errors/app-error.js';
import { TerminalError } from '../errors/terminal-error.js';
import { pendingFragmentResyncs } from './fragment-users.js';
import { targetsOf } from './sync-targets.js';

/** Queue kind of an attachment resync (queued when a fragment it uses changes). */
export const RESYNC_KIND = 'config-attachment';

/**
 * Level-triggered: re-reads the attachment, its file and its servers, renders and writes. A
 * render failure (an unknown key) is terminal until someone edits; a host failure retries.
 */
export async function startConfigResync(s: Services): Promise<void> {
  const cs = s.configStore;
  s.queue.register(RESYNC_KIND, async (attachmentId) => {
    const attachment = await cs.attachments.findById(attachmentId);
    if (!attachment) return;
    const file = await cs.files.findById(attachment.configFileId);
    if (!file) return;
    const targets = await targetsOf(s.configStore.reads, [file], [attachment]);
    let results;
    try {
      results = await cs.sync.syncEach([file], targets, false);
    } catch (e) {
      if (isAppError(e)) throw new TerminalError(e.message);
      throw e;
    }
    const failed = results.filter((r) => r.status === 'failed');
    s.logger.info('config attachment resynced', { attachmentId, targets: results.length, failed: failed.length });
    const facts = { configFileId: file.id, targets: results.length, written: results.filter((r) => r.status === 'written').length, failed: failed.length };
    await s.audit.record({ actorType: 'system', action: 'resyncConfigAttachment', resourceType: 'config-attachments',
      resourceId: attachmentId, environmentId: attachment.environmentId, details: { reason: 'fragment changed', ...facts } });
    await s.events.publish('config.synced', attachment.environmentId, { attachmentId, ...facts, trigger: 'fragment' });
    if (failed.length) throw new Error(`${failed.length} of ${results.length} targets failed`);
  });
  // the queue is in memory: pick up the resyncs a stopped controller had queued but not run
  for (const id of await pendingFragmentResyncs(s.configStore.reads)) s.queue.add(`${RESYNC_KIND}/${id}`);
}
