import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (p: string, s: Buffer, len: number, o: crypto.ScryptOptions) => Promise<Buffer>;
/**
 * log2 of scrypt's N. 15 (N=2^15) takes ~50 ms on an idle machine: slow enough to make guessing
 * expensive, fast enough for logins. PASSWORD_HASH_COST may only lower it, for tests, where six
 * hashes per started service take seconds on a loaded machine.
 */
export const DEFAULT_PASSWORD_HASH_COST = 15;
export const MIN_PASSWORD_HASH_COST = 10;
const r = 8;
const p = 1;
// caps the N a stored hash may ask for at the default's (128·N·r bytes)
const maxmem = 64 * 1024 * 1024;
const KEY_LEN = 32;

export async function hashPassword(password: string, cost = DEFAULT_PASSWORD_HASH_COST): Promise<string> {
  const N = 2 ** cost;
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LEN, { N, r, p, maxmem });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, rs, ps, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(rs), p: Number(ps), maxmem });
  return crypto.timingSafeEqual(actual, expected);
}

/** A hash to compare against when the account does not exist, as slow as a real one, so timing does not reveal it. */
export function dummyPasswordHash(cost = DEFAULT_PASSWORD_HASH_COST): string {
  return `scrypt$${2 ** cost}$${r}$${p}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
}
