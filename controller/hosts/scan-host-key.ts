// The host key a server presents now, read as `ssh-keyscan` reads it: the connection stops at the
// key exchange (the verifier refuses every key), so nothing authenticates and nothing runs. For a
// server rebuilt with a new key: an admin compares this with the key on the machine's console and
// pins it (POST /api/servers/{id}/host-key/accept) instead of trusting whatever comes next.
import { Client } from 'ssh2';
import { fingerprintOf } from './host-key.js';

export interface PresentedHostKey {
  fingerprint: string;
  /** The key's type as its blob names it: ssh-ed25519, ecdsa-sha2-nistp256, ssh-rsa. */
  algorithm: string;
}

/** The key type, the first string of an SSH public key blob (RFC 4253 6.6). */
export function algorithmOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const n = blob.readUInt32BE(0);
  return n > 0 && n <= 64 && blob.length >= 4 + n ? blob.subarray(4, 4 + n).toString('latin1') : 'unknown';
}

export function scanHostKey(target: { hostname: string; sshPort: number }, timeoutMs: number): Promise<PresentedHostKey> {
  const client = new Client();
  return new Promise<PresentedHostKey>((resolve, reject) => {
    let presented: PresentedHostKey | null = null;
    const done = (err: Error | null) => {
      clearTimeout(timer);
      client.destroy();
      if (presented) resolve(presented);
      else reject(err ?? new Error('the server closed the connection before presenting a key'));
    };
    const timer = setTimeout(() => done(new Error(`no host key within ${timeoutMs} ms`)), timeoutMs);
    client.on('error', (err) => done(presented ? null : err));
    client.on('close', () => done(null));
    try {
      client.connect({
        host: target.hostname, port: target.sshPort, username: 'stevedore-keyscan', readyTimeout: timeoutMs + 1000,
        hostVerifier: (key: Buffer) => {
          presented = { fingerprint: fingerprintOf(key), algorithm: algorithmOf(key) };
          return false;
        },
      });
    } catch (err) {
      done(err as Error);
    }
  });
}
