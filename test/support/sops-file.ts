// SOPS files for the tests, made as the sops tool makes them (sops is not packaged by Debian):
// the values encrypted with AES-256-GCM under a random data key, the MAC, and the data key
// encrypted to age recipients with the age-encryption library.
import crypto from 'node:crypto';
import { stringify } from 'yaml';
import { generateIdentity, identityToRecipient } from 'age-encryption';
import { encryptTree } from '../../controller/manifests/sops/sops-tree.js';
import { sealDataKey } from '../../controller/manifests/sops/data-key.js';

export async function ageKeyPair(): Promise<{ identity: string; recipient: string }> {
  const identity = await generateIdentity();
  return { identity, recipient: await identityToRecipient(identity) };
}

/**
 * A SOPS-encrypted YAML text of `tree` for the recipients. `encrypt` picks the leaves to encrypt
 * (default: those under spec, as `--encrypted-regex '^spec$'` would).
 */
export async function sopsFile(tree: Record<string, unknown>, recipients: string[], encrypt: (path: string[]) => boolean = (p) => p[0] === 'spec'): Promise<string> {
  const key = crypto.randomBytes(32);
  const lastmodified = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const { body, mac } = encryptTree(tree, key, lastmodified, encrypt);
  const age = await Promise.all(recipients.map(async (recipient) => ({ recipient, enc: await sealDataKey(key, recipient) })));
  return stringify({ ...body, sops: { age, lastmodified, mac, unencrypted_suffix: '_unencrypted', version: '3.9.4' } });
}
