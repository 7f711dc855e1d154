import type { CheckKind, CheckStatus } from '../store/repositories/health-logs.js';

/** One health check result before it is stored: what was checked, what was seen, how long it took. */
export interface CheckResult {
  environmentId: string;
  kind: CheckKind;
  /** Identifies the check across passes (its alert state): kind plus subject plus port. */
  checkKey: string;
  serverId: string | null;
  deploymentId: string | null;
  /** For people: names the server, container and port ("web-1 on s1 tcp 127.0.0.1:8443"). */
  target: string;
  status: CheckStatus;
  latencyMs: number;
  error: string | null;
  details: Record<string, unknown>;
}

/** Only a failure counts against the alert; a warning (a certificate expiring in weeks) is logged. */
export const countsAsFailure = (r: Pick<CheckResult, 'status'>) => r.status === 'failed';
