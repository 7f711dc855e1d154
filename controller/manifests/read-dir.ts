import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { ManifestFile } from './types.js';

const IS_MANIFEST = /\.ya?ml$/i;

/** Every *.yaml / *.yml under dir (recursively, hidden folders skipped), sorted by path. */
export async function readManifestDir(dir: string): Promise<ManifestFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((e) => e.isFile() && IS_MANIFEST.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .map((full) => relative(dir, full).split(sep).join('/'))
    .filter((p) => !p.split('/').some((part) => part.startsWith('.') || part === 'node_modules'))
    .sort();
  return Promise.all(paths.map(async (path) => ({ path, content: await readFile(join(dir, path), 'utf8') })));
}

/** The revision of a folder's content: independent of where it lives and of file times. */
export function contentHash(files: ManifestFile[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update(f.path).update('\0').update(f.content).update('\0');
  }
  return `sha256:${h.digest('hex')}`;
}
