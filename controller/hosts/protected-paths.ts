import fs from 'node:fs/promises';
import path from 'node:path';
import { validationError } from '../errors/app-error.js';

/** The path with symlinks of its existing part resolved, so a link cannot smuggle a path in. */
async function realTarget(filePath: string): Promise<string> {
  const resolved = path.resolve(filePath);
  try {
    return await fs.realpath(resolved);
  } catch {
    const parent = await fs.realpath(path.dirname(resolved)).catch(() => path.dirname(resolved));
    return path.join(parent, path.basename(resolved));
  }
}

/**
 * A socket-mode server is the controller's own machine: file reads and writes there must never
 * reach the controller's state dir (JWT secret, encryption key, embedded database).
 */
export async function assertNotProtected(filePath: string, protectedDirs: readonly string[]): Promise<void> {
  if (protectedDirs.length === 0) return;
  const target = await realTarget(filePath);
  for (const dir of protectedDirs) {
    const root = await fs.realpath(dir).catch(() => path.resolve(dir));
    if (target === root || target.startsWith(root + path.sep)) {
      throw validationError(`${filePath} is inside the controller's own state directory and cannot be read or written`, 'targetPath');
    }
  }
}
