import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const API_TOKEN_PREFIX = 'svc_pat_';

/** Big-endian base62 of the bytes, so all 256 bits of randomness survive. */
export function base62(bytes: Buffer): string {
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(43, '0');
}

export function generateApiToken(): string {
  return API_TOKEN_PREFIX + base62(crypto.randomBytes(32));
}

// crypto.hash (Node ≥ 20.12), one call without a Hash object: about a seventh of the time, and the
// bearer token of every authenticated request is hashed to find it in the cache
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;

export function sha256Hex(value: string | Buffer): string {
  return oneShot ? oneShot('sha256', value, 'hex') : crypto.createHash('sha256').update(value).digest('hex');
}

export const tokenPrefixOf = (token: string) => token.slice(0, 12);
