import { readManifestDir } from '../../controller/manifests/read-dir.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

/** The example folder, read as the CLI sends it. */
export const exampleFiles = (): Promise<ManifestFile[]> => readManifestDir(new URL('../../examples/manifests', import.meta.url).pathname);

/** Replaces text in one file of a folder (returns a new list). */
export const edit = (files: ManifestFile[], path: string, from: string | RegExp, to: string): ManifestFile[] =>
  files.map((f) => (f.path === path ? { ...f, content: f.content.replace(from, to) } : f));
