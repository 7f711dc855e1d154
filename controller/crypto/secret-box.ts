import crypto from 'node:crypto';

/**
 * AES-256-GCM for values kept at rest (secret values, registry credentials, SSH keys, SMTP
 * passwords). Stored form: "v1:" + base64(iv | tag | ciphertext), so a future key rotation
 * can tell versions apart.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(plaintext: string): string {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return 'v1:' + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('unknown sealed value format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  /**
   * A keyed fingerprint (HMAC-SHA256 under a key derived from the box key) for data that may hold
   * a secret and must only be compared, never read back: unlike a plain hash it cannot be used to
   * test guesses of a low-entropy value offline.
   */
  fingerprint(data: string | Buffer): string {
    this.macKey ??= Buffer.from(crypto.hkdfSync('sha256', this.key, Buffer.alloc(0), 'stevedore fingerprint v1', 32));
    return crypto.createHmac('sha256', this.macKey).update(data).digest('hex');
  }

  private macKey?: Buffer;

  sealOrNull(plaintext: string | null | undefined): string | null {
    return plaintext == null ? null : this.seal(plaintext);
  }
}
