// The last good revision is the fallback: while the revision a service desires has failed, what
// its containers should run is its current revision (the newest that fully succeeded). Looks
// compare with it and heal restores it; the failed revision is never deployed again by itself.
import type { Services } from '../../controller/services.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { RevisionSpec } from './revision-spec.js';

type Revisions = Pick<ServiceRow, 'desiredRevision' | 'currentRevision' | 'failedRevision'>;

/** The desired revision failed and an older one had succeeded: that one is the target. */
export function inFallback(svc: Revisions): boolean {
  return svc.failedRevision != null && svc.failedRevision === svc.desiredRevision
    && svc.currentRevision != null && svc.currentRevision !== svc.failedRevision;
}

/** The spec to fall back to, or null when the service is not falling back (or the row is gone). */
export async function fallbackRevisionOf(s: Pick<Services, 'revisions'>, svc: Revisions & Pick<ServiceRow, 'id'>): Promise<RevisionSpec | null> {
  if (!inFallback(svc)) return null;
  const row = await s.revisions.find(svc.id, svc.currentRevision!);
  return row ? (row.spec as unknown as RevisionSpec) : null;
}

/**
 * What the drift report and the Degraded condition say while the desired revision has failed:
 * "running r7 (last good); r8 failed: <why>" (without the first part when nothing succeeded
 * before). null otherwise.
 */
export function fallbackNote(svc: Revisions & Pick<ServiceRow, 'failedReason'>): string | null {
  if (svc.failedRevision == null || svc.failedRevision !== svc.desiredRevision) return null;
  const failed = `r${svc.failedRevision} failed: ${svc.failedReason || 'the rollout failed'}`;
  return inFallback(svc) ? `running r${svc.currentRevision} (last good); ${failed}` : failed;
}
