import crypto from 'node:crypto';
import { constantTimeEqual } from '../../crypto/constant-time.js';

// SOPS's file format (getsops/sops, "stores" and "aes" packages), the parts a reader needs: each
// encrypted leaf is `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`, AES-256-GCM under the file's data
// key with a 32-byte IV and the leaf's path (`key:key:`) as additional data; the MAC is SHA-512
// over every leaf's plain value in document order (or only the encrypted ones with
// mac_only_encrypted), uppercase hex, itself encrypted with `lastmodified` as additional data.
// Pure: no I/O, no logging.

const ENC = /^ENC\[AES256_GCM,data:([A-Za-z0-9+/=]*),iv:([A-Za-z0-9+/=]+),tag:([A-Za-z0-9+/=]+),type:(str|int|float|bool|bytes|comment)\]$/;

export type Leaf = string | number | boolean;

/** A SOPS file could not be read: the message names the path inside the document, never a value. */
export class SopsError extends Error {
  constructor(message: string, readonly path: string[] = []) {
    super(message);
    this.name = 'SopsError';
  }
}

export const isEncrypted = (v: unknown): v is string => typeof v === 'string' && ENC.test(v);

/** Decrypts one `ENC[…]` leaf with its path as additional data. */
export function decryptLeaf(value: string, key: Uint8Array, aad: string): Leaf {
  const m = ENC.exec(value);
  if (!m) throw new SopsError('not a SOPS-encrypted value');
  const [, data, iv, tag, type] = m;
  let plain: string;
  try {
    const d = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    plain = Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
  } catch {
    throw new SopsError('a value does not decrypt with the file\'s data key (altered, or moved to another key)');
  }
  if (type === 'int') return Number.parseInt(plain, 10);
  if (type === 'float') return Number.parseFloat(plain);
  if (type === 'bool') return plain === 'True' || plain === 'true';
  return plain;
}

/** Encrypts one leaf as SOPS does (for tests and fixtures). */
export function encryptLeaf(value: Leaf, key: Uint8Array, aad: string): string {
  const type = typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? (Number.isInteger(value) ? 'int' : 'float') : 'str';
  const iv = crypto.randomBytes(32);
  const c = crypto.createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const data = Buffer.concat([c.update(leafBytes(value)), c.final()]);
  return `ENC[AES256_GCM,data:${data.toString('base64')},iv:${iv.toString('base64')},tag:${c.getAuthTag().toString('base64')},type:${type}]`;
}

/** A leaf's bytes as SOPS's ToBytes gives them (what the MAC hashes). */
export function leafBytes(v: Leaf): Buffer {
  if (typeof v === 'boolean') return Buffer.from(v ? 'True' : 'False');
  if (typeof v === 'number') return Buffer.from(Number.isInteger(v) ? String(v) : formatFloat(v));
  return Buffer.from(v, 'utf8');
}
const formatFloat = (f: number) => (Number.isFinite(f) ? String(f).replace(/e\+?(-?\d+)$/, (_m, e) => `e${e}`) : String(f));

/**
 * Visits every leaf of a SOPS tree in document order with its path of keys (list items add no
 * element, as in SOPS), and puts back what `visit` returns.
 */
export function mapLeaves(node: unknown, visit: (leaf: Leaf, path: string[]) => Leaf, path: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((x) => mapLeaves(x, visit, path));
  if (node && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, mapLeaves(v, visit, [...path, k])]));
  }
  if (node === null || node === undefined) return node;
  return visit(node as Leaf, path);
}

export const aadOf = (path: string[]) => `${path.join(':')}:`;

export interface SopsMetadata {
  lastmodified: string;
  mac: string;
  mac_only_encrypted?: boolean;
  age?: Array<{ recipient: string; enc: string }>;
}

/** The `sops` block of a document, checked for what a reader needs. */
export function metadataOf(doc: Record<string, unknown>): SopsMetadata {
  const m = doc.sops as Record<string, unknown> | undefined;
  if (!m || typeof m !== 'object') throw new SopsError('the file has no sops metadata: encrypt it with sops (age recipients)', ['sops']);
  const lastmodified = m.lastmodified instanceof Date ? m.lastmodified.toISOString().replace(/\.000Z$/, 'Z') : m.lastmodified;
  if (typeof lastmodified !== 'string' || typeof m.mac !== 'string') throw new SopsError('the sops metadata has no lastmodified or mac', ['sops']);
  const age = Array.isArray(m.age) ? (m.age as Array<{ recipient: string; enc: string }>).filter((a) => a && typeof a.enc === 'string') : [];
  if (!age.length) throw new SopsError('the file is not encrypted to any age recipient (sops --age …)', ['sops', 'age']);
  return { lastmodified, mac: m.mac, mac_only_encrypted: m.mac_only_encrypted === true, age };
}

/**
 * Decrypts a SOPS document (its `sops` block removed) with its data key and verifies its MAC.
 * Returns the plain tree and the paths of the leaves that were encrypted.
 */
export function decryptTree(doc: Record<string, unknown>, key: Uint8Array): { tree: Record<string, unknown>; encrypted: string[][] } {
  const meta = metadataOf(doc);
  const { sops: _sops, ...body } = doc;
  const hash = crypto.createHash('sha512');
  const encrypted: string[][] = [];
  const tree = mapLeaves(body, (leaf, path) => {
    if (isEncrypted(leaf)) {
      const plain = decryptLeaf(leaf, key, aadOf(path));
      encrypted.push(path);
      hash.update(leafBytes(plain));
      return plain;
    }
    if (!meta.mac_only_encrypted) hash.update(leafBytes(leaf));
    return leaf;
  }) as Record<string, unknown>;
  const computed = hash.digest('hex').toUpperCase();
  let stored: Leaf;
  try {
    stored = decryptLeaf(meta.mac, key, meta.lastmodified);
  } catch {
    throw new SopsError('the MAC does not decrypt: the file was altered', ['sops', 'mac']);
  }
  if (typeof stored !== 'string' || !constantTimeEqual(stored, computed)) {
    throw new SopsError('the MAC does not match the values: the file was altered after it was encrypted', ['sops', 'mac']);
  }
  return { tree, encrypted };
}

/** Encrypts a plain tree as SOPS would (every leaf, or those `encrypt` picks); the data key is the caller's. For tests and fixtures. */
export function encryptTree(tree: Record<string, unknown>, key: Uint8Array, lastmodified: string, encrypt: (path: string[]) => boolean = () => true): { body: Record<string, unknown>; mac: string } {
  const hash = crypto.createHash('sha512');
  const body = mapLeaves(tree, (leaf, path) => {
    hash.update(leafBytes(leaf));
    return encrypt(path) ? encryptLeaf(leaf, key, aadOf(path)) : leaf;
  }) as Record<string, unknown>;
  return { body, mac: encryptLeaf(hash.digest('hex').toUpperCase(), key, lastmodified) };
}
