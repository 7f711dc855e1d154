/** Field schemas that only manifests use: names other manifests refer to, and valueFrom for secrets. */
import { object, str, type Schema } from './schema.js';

/** Names of objects, as the API's environment names: also how manifests refer to each other. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
export const name = (description: string): Schema => str({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN, description });
/** Keys of vars and secrets, as the API's. */
export const KEY_PATTERN = '^[A-Z_][A-Z0-9_]*$';
export const RESERVED_LABEL_PREFIX = 'stevedore.';

/**
 * `valueFrom`: where the controller reads a secret value at apply time; never the value itself.
 * env and file read the controller's own environment and files: only the watched folder's
 * manifests may (controller/manifests/reference-policy.ts).
 */
export const valueFrom: Schema = object({
  secretRef: str({ minLength: 1, maxLength: 200, pattern: KEY_PATTERN, description: 'Key of a Secret of the manifest\'s own environment (in the store, or written by the same apply)' }),
  env: str({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z_][A-Za-z0-9_]*$', description: 'Environment variable of the controller process (the watched MANIFESTS_DIR folder only)' }),
  file: str({ minLength: 1, maxLength: 1000, description: 'File path, relative to the manifests folder or absolute (the watched MANIFESTS_DIR folder only)' }),
  sops: str({ minLength: 1, maxLength: 2000, description: 'Set by the controller for a value decrypted from a *.sops.yaml file of a Git source (write the value itself in the SOPS file instead)' }),
}, [], { minProperties: 1, maxProperties: 1, description: 'Exactly one of secretRef, env or file (env and file: the watched folder only; sops: set by the controller for SOPS files)' });

export const secretRef = (description: string): Schema =>
  object({ valueFrom }, ['valueFrom'], { description: `${description} (write-only; read from valueFrom)` });
