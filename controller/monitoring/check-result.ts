import type { HealthLogRow } from '../store/repositories/health-logs.js';

/** One health check result before it is stored: a health log row without its id and time. */
export type CheckResult = Omit<HealthLogRow, 'id' | 'checkedAt'>;

/** Only a failure counts against the alert; a warning (a certificate expiring in weeks) is logged. */
export const countsAsFailure = (r: Pick<CheckResult, 'status'>) => r.status === 'failed';
