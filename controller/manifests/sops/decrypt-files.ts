import type { Services } from '../../services.js';
import type { ManifestError, ManifestFile } from '../types.js';

export interface DecryptedFiles {
  files: ManifestFile[];
  /** Secret values, by the key their valueFrom.sops names. */
  values: Map<string, string>;
  errors: ManifestError[];
}

/** Decrypts the *.sops.yaml files of a commit in memory (stub until SOPS support lands). */
export async function decryptSopsFiles(_s: Services, _environmentId: string, files: ManifestFile[]): Promise<DecryptedFiles> {
  return { files, values: new Map(), errors: [] };
}
