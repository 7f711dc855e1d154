// Host key fingerprints in the exact form OpenSSH prints (`ssh-keygen -lf`): "SHA256:" + unpadded
// base64 of the SHA-256 of the key blob, so operators can compare them with what they see.
import { createHash } from 'node:crypto';

export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}
