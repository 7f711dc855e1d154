import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

/** Creates the state dir (embedded database, generated keys) readable by its owner only. */
export function ensureStateDir(dir: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return path.resolve(dir);
}

/**
 * Returns the key stored in `<stateDir>/<file>`, generating it (mode 0600) on first use, so a
 * restart keeps the same JWT secret and encryption key without the operator setting one.
 */
export function generatedKey(stateDir: string, file: string, bytes = 32): string {
  const keyPath = path.join(stateDir, file);
  try {
    return fs.readFileSync(keyPath, 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const value = crypto.randomBytes(bytes).toString('base64');
  fs.writeFileSync(keyPath, value + '\n', { mode: 0o600, flag: 'wx' });
  return value;
}
