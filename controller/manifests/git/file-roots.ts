import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real path of `p`: symlinks and `..` resolved by the file system; a tail that does not exist
 * (yet) is kept as written under its deepest existing ancestor.
 */
function realPath(p: string): string {
  const abs = resolve(p);
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), basename(abs));
  }
}

const within = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * Where a `file://` Git source may read (docs/git-sources.md): a repository on the controller's
 * machine is reachable only under a folder the operator listed in GIT_FILE_ROOTS (none by
 * default), and never in the state dir, which holds every environment's Git cache and the
 * controller's keys. Checked on the real path (symlinks and `..` resolved): the path git is then
 * handed is the one checked, so what it reads is never decided by git's own URL decoding.
 * Asked when a source is saved (400) and again at each fetch (a root may have been dropped, a
 * symlink changed).
 */
export function fileSourcePath(url: string, roots: string[], stateDir: string): { path: string } | { problem: string } {
  let path: string;
  try {
    path = realPath(fileURLToPath(new URL(url)));
  } catch {
    return { problem: 'is not a file:// URL of an absolute path' };
  }
  if (within(path, realPath(stateDir)) || within(realPath(stateDir), path)) {
    return { problem: `names ${path}, the controller's state dir or a folder holding it: Git sources never read it (it holds every environment's Git cache)` };
  }
  if (!roots.length) return { problem: 'is a file:// URL, and the controller lists no folder Git sources may read (GIT_FILE_ROOTS is not set)' };
  if (!roots.some((r) => within(path, realPath(r)))) return { problem: `names ${path}, outside the folders Git sources may read (GIT_FILE_ROOTS: ${roots.join(':')})` };
  return { path };
}
