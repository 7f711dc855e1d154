import crypto from 'node:crypto';
import { constantTimeEqual } from '../crypto/constant-time.js';

/**
 * Checks an incoming webhook signature over the exact raw body bytes (Authentication rule 8).
 * `prefix` is '' for X-Webhook-Signature (lowercase hex) and 'sha256=' for X-Hub-Signature-256.
 * The expected form is exact: uppercase hex or a missing prefix does not match.
 * A null secret means the endpoint is disabled: nothing verifies (fail closed).
 */
export function verifySignature(secret: string | null, rawBody: Buffer, header: string | undefined, prefix: '' | 'sha256='): boolean {
  if (!secret || !header) return false;
  const expected = prefix + crypto.createHmac('sha256', secret).update(rawBody).digest('hex');
  return constantTimeEqual(header, expected);
}
