// The environment SSH key: validated with ssh2's own parser (what the pool will use), sealed at
// rest, and described by its public half and the OpenSSH SHA256 fingerprint.
// default import: ssh2 is CommonJS and Node's ESM loader cannot see `utils` as a named export
import ssh2 from 'ssh2';
import { validationError } from '../errors/app-error.js';
import { fingerprintOf } from '../hosts/host-key.js';

export interface ParsedSshKey {
  publicKey: string;
  fingerprint: string;
}

/** Throws VALIDATION_ERROR (field privateKey) unless it is an unencrypted private key ssh2 can use. */
export function parsePrivateKey(privateKey: string): ParsedSshKey {
  const parsed = ssh2.utils.parseKey(privateKey);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) {
    // ssh2's message says what is wrong (format, encrypted) and never echoes the key itself
    const why = key instanceof Error ? key.message : 'no key found';
    throw validationError(`privateKey is not a usable SSH private key: ${why}`, 'privateKey',
      'Paste an unencrypted OpenSSH or PEM private key (ed25519, ecdsa or rsa)');
  }
  if (!key.isPrivateKey()) throw validationError('privateKey holds a public key, not a private key', 'privateKey');
  const blob = key.getPublicSSH();
  return { publicKey: `${key.type} ${blob.toString('base64')}`, fingerprint: fingerprintOf(blob) };
}

/**
 * A new ed25519 key pair for an environment that has none (the dashboard's first run): the private
 * half is only ever sealed and stored, the public half is shown to add to the servers.
 */
export function generatePrivateKey(comment: string): string {
  // ssh2's generator now and then (about 3 in 1,000 here) writes a key its own parser then calls
  // malformed; such a key could never be used, so it is drawn again
  for (let attempt = 1; ; attempt++) {
    const key = ssh2.utils.generateKeyPairSync('ed25519', { comment }).private;
    if (!(ssh2.utils.parseKey(key) instanceof Error) || attempt === 20) return key;
  }
}
