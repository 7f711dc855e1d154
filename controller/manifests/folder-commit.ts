import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';
import { runGit } from './git/run-git.js';
import { parseTree } from './git/git-output.js';
import type { ManifestFile } from './types.js';

/** git's object id of a blob with this content (SHA-1 repositories). */
export const blobId = (content: string) => {
  const body = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${body.length}\0`).update(body).digest('hex');
};

/**
 * Whether the folder's manifests are exactly those of a tree: the same YAML paths, each with the
 * same blob. Pure. `tree` holds paths relative to the folder.
 */
export function sameAsTree(files: ManifestFile[], tree: Array<{ path: string; object: string }>): boolean {
  const yaml = tree.filter((e) => /\.ya?ml$/i.test(e.path) && !e.path.split('/').some((p) => p.startsWith('.') || p === 'node_modules'));
  if (yaml.length !== files.length) return false;
  const byPath = new Map(yaml.map((e) => [e.path, e.object]));
  return files.every((f) => byPath.get(f.path) === blobId(f.content));
}

/**
 * The commit that names a manifests folder: the HEAD of the Git work tree holding it, only when
 * every manifest file read is that commit's (none added, changed or removed since). A folder
 * outside Git, or one that differs from HEAD, has no commit: it is named by its content hash,
 * never after whatever checkout happens to contain it (the controller's own, say).
 */
export async function folderCommit(dir: string, files: ManifestFile[]): Promise<string | null> {
  try {
    const top = (await runGit(['rev-parse', '--show-toplevel'], { cwd: dir, timeoutMs: 10_000 })).toString('utf8').trim();
    const head = (await runGit(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: dir, timeoutMs: 10_000 })).toString('utf8').trim();
    const prefix = relative(top, dir).split(sep).join('/');
    const tree = parseTree(await runGit(['ls-tree', '-r', '-z', '--full-tree', head, '--', ...(prefix ? [`${prefix}/`] : [])], { cwd: dir, timeoutMs: 10_000 }))
      .filter((e) => e.type === 'blob')
      .map((e) => ({ path: prefix ? e.path.slice(prefix.length + 1) : e.path, object: e.object }));
    return sameAsTree(files, tree) ? head : null;
  } catch {
    return null; // not in a Git work tree, or git is not installed
  }
}
