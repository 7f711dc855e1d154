// Which (environment, host) pairs a certificate pass hands to the reconciler: pure, so the
// scheduler's pass and the reconciler itself decide the same way (test/unit/ingress/certificate-due.test.ts).
import { renewalDue } from '../../controller/ingress/acme/certificate-facts.js';
import type { CertificateRow } from '../../controller/store/repositories/certificates.js';

/** An order still `pending` after this long was left by a replica that stopped: it is ordered again. */
export const PENDING_STALE_MS = 15 * 60_000;

export type DueReason = 'new' | 'renewal' | 'retry' | 'stale order';

/** Why the host needs an order now, or null when its certificate is good and nothing failed. */
export function dueReason(row: Pick<CertificateRow, 'state' | 'notAfter' | 'nextAttemptAt' | 'lastAttemptAt'> | undefined, now: Date, renewBeforeDays: number): DueReason | null {
  if (!row || row.state === 'none') return 'new';
  if (row.state === 'pending') return row.lastAttemptAt && now.getTime() - row.lastAttemptAt.getTime() > PENDING_STALE_MS ? 'stale order' : null;
  if (row.state === 'failed') return !row.nextAttemptAt || row.nextAttemptAt <= now ? 'retry' : null;
  return !row.notAfter || renewalDue(row.notAfter, now, renewBeforeDays) ? 'renewal' : null;
}
