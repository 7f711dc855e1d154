import { armor, Decrypter, Encrypter } from 'age-encryption';
import { SopsError, type SopsMetadata } from './sops-tree.js';

/** The file's data key: the first age stanza the identity opens (sops writes the 32 raw bytes, armored). */
export async function dataKeyOf(meta: SopsMetadata, identity: string): Promise<Uint8Array> {
  const d = new Decrypter();
  d.addIdentity(identity);
  for (const a of meta.age ?? []) {
    try {
      const key = await d.decrypt(armor.decode(a.enc.trim()));
      if (key.length === 32) return key;
    } catch {
      // encrypted to another recipient: try the next
    }
  }
  throw new SopsError(`none of the file's age recipients (${(meta.age ?? []).map((a) => a.recipient).join(', ')}) is this environment's identity`, ['sops', 'age']);
}

/** The data key encrypted to a recipient, armored, as sops writes `sops.age[].enc` (tests and fixtures). */
export async function sealDataKey(key: Uint8Array, recipient: string): Promise<string> {
  const e = new Encrypter();
  e.addRecipient(recipient);
  return armor.encode(await e.encrypt(key));
}
