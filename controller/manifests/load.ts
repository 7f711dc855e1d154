import { expandEnvRefs } from './expand-env.js';
import type { FileCache } from './file-cache.js';
import { parseFile } from './parse.js';
import { contentHash } from './read-dir.js';
import { resolveReferences } from './resolve.js';
import { validateDocument } from './validate.js';
import type { LoadResult, Manifest, ManifestError, ManifestFile } from './types.js';

/** What one file gives on its own: its valid documents, and its syntax, schema and rule errors. */
export interface LoadedFile {
  manifests: Manifest[];
  errors: ManifestError[];
}

/**
 * Parses, validates and resolves a folder's files. Every error is collected (syntax, schema,
 * rules, references) so one run shows them all; callers apply nothing when errors is non-empty.
 * `external` holds keyOf() of objects that already exist in the store (server side only).
 * With a cache, a file whose text did not change since the last load is not parsed or validated
 * again; what spans files (references, duplicates, cycles) is always checked over the whole set.
 */
export function loadManifests(files: ManifestFile[], external?: Set<string>, cache?: FileCache<LoadedFile>): LoadResult {
  const manifests: Manifest[] = [];
  const errors: ManifestError[] = [];
  for (const f of files) {
    const text = expandEnvRefs(f, errors);
    const one = cache ? cache.get(f.path, text, () => loadFile(f.path, text)) : loadFile(f.path, text);
    manifests.push(...one.manifests);
    errors.push(...one.errors);
  }
  cache?.keepOnly(files.map((f) => f.path));
  errors.push(...resolveReferences(manifests, external));
  errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { manifests, errors, contentHash: contentHash(files) };
}

/** Parses and validates one file's (expanded) text: what it gives depends on nothing else. */
function loadFile(path: string, text: string): LoadedFile {
  const { documents, errors } = parseFile(path, text);
  const manifests: Manifest[] = [];
  for (const doc of documents) {
    const problems = validateDocument(doc);
    if (problems.length) {
      errors.push(...problems);
      continue;
    }
    const v = doc.value as Omit<Manifest, 'file' | 'line' | 'positionOf'>;
    manifests.push({ ...v, file: doc.file, line: doc.positionOf([]).line, positionOf: (p) => doc.positionOf(p) });
  }
  return { manifests, errors };
}
