// The one home of webhook signatures, both ways: what the controller signs its outgoing webhooks
// with (X-Webhook-Signature: sha256=<hex>) and what it checks incoming ones against (CI webhooks'
// X-Webhook-Signature / X-Hub-Signature-256, code hosts' X-Hub-Signature-256 / X-Gitea-Signature).
// HMAC-SHA256 over the exact body bytes; every comparison constant-time (constant-time.ts).
import crypto from 'node:crypto';
import { constantTimeEqual } from './constant-time.js';

/** HMAC-SHA256 of the exact body bytes under the secret, lowercase hex. */
export const hmacHex = (secret: string, body: string | Buffer) => crypto.createHmac('sha256', secret).update(body).digest('hex');

/** `sha256=<hex HMAC>` of the body: the outgoing X-Webhook-Signature. */
export const signBody = (secret: string, body: string | Buffer) => `sha256=${hmacHex(secret, body)}`;

/**
 * Whether `header` is exactly `prefix` + the hex HMAC of the raw body (Authentication rule 8), in
 * time that depends only on the lengths. `prefix` is '' for a bare hex digest and 'sha256=' for
 * the GitHub form. Uppercase hex or a missing prefix does not match. No secret (the endpoint is
 * disabled) or no header never verifies: closed.
 */
export function verifySignature(secret: string | null, rawBody: Buffer, header: string | undefined, prefix: '' | 'sha256='): boolean {
  if (!secret || !header) return false;
  return constantTimeEqual(header, prefix + hmacHex(secret, rawBody));
}
