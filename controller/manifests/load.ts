import { parseFiles } from './parse.js';
import { contentHash } from './read-dir.js';
import { resolveReferences } from './resolve.js';
import { validateDocument } from './validate.js';
import type { LoadResult, Manifest, ManifestFile } from './types.js';

/**
 * Parses, validates and resolves a folder's files. Every error is collected (syntax, schema,
 * rules, references) so one run shows them all; callers apply nothing when errors is non-empty.
 * `external` holds keyOf() of objects that already exist in the store (server side only).
 */
export function loadManifests(files: ManifestFile[], external?: Set<string>): LoadResult {
  const { documents, errors } = parseFiles(files);
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
  errors.push(...resolveReferences(manifests, external));
  errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { manifests, errors, contentHash: contentHash(files) };
}
