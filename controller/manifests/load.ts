import { expandEnvRefs } from './expand-env.js';
import type { FileCache } from './file-cache.js';
import { parseFileSteps } from './parse.js';
import { DocumentBudget, YAML_LIMITS, YamlRefused } from '../yaml/read-yaml.js';
import { Pace, runPaced, runToEnd } from '../yaml/paced.js';
import { contentHash } from './read-dir.js';
import { resolveReferences } from './resolve.js';
import { validateDocument } from './validate.js';
import type { LoadResult, Manifest, ManifestError, ManifestFile } from './types.js';
import type { ManifestOrigin } from './reference-policy.js';

/** What one file gives on its own: its valid documents, and its syntax, schema and rule errors. */
export interface LoadedFile {
  manifests: Manifest[];
  errors: ManifestError[];
  /** Documents the file holds (empty ones included): what it takes of the folder's cap. */
  documents: number;
}

/**
 * Parses, validates and resolves a folder's files. Every error is collected (syntax, schema,
 * rules, references) so one run shows them all; callers apply nothing when errors is non-empty.
 * `external` holds keyOf() of objects that already exist in the store (server side only).
 * With a cache, a file whose text did not change since the last load is not parsed or validated
 * again; what spans files (references, duplicates, cycles) is always checked over the whole set.
 * The folder holds at most YAML_LIMITS.maxDocuments documents: past it, the file that crosses
 * the cap is `refused` and the rest is not read. The origin defaults to the folder's: the CLI's
 * offline validation runs on its author's machine, with its author's environment.
 */
export function loadManifests(files: ManifestFile[], external?: Set<string>, cache?: FileCache<LoadedFile>, origin: ManifestOrigin = 'folder'): LoadResult {
  return runToEnd(loadSteps(files, origin, external, cache));
}

/**
 * loadManifests in slices: the event loop gets a turn every YAML_LIMITS.sliceMs (a 1 MB folder parses for ~0.7 s).
 * `origin` says whose files they are: only the watched folder's expand `${env:NAME}` (reference-policy.ts).
 */
export function loadManifestsPaced(files: ManifestFile[], origin: ManifestOrigin, external?: Set<string>, cache?: FileCache<LoadedFile>, rewrite?: Rewrite): Promise<LoadResult> {
  return runPaced(loadSteps(files, origin, external, cache, rewrite), new Pace(YAML_LIMITS.sliceMs));
}

/** What a preview does to a pull request's manifests before references are resolved (git/preview-manifests.ts). */
export type Rewrite = (manifests: Manifest[]) => { manifests: Manifest[]; errors: ManifestError[] };

function* loadSteps(files: ManifestFile[], origin: ManifestOrigin, external?: Set<string>, cache?: FileCache<LoadedFile>, rewrite?: Rewrite): Generator<void, LoadResult> {
  const manifests: Manifest[] = [];
  const errors: ManifestError[] = [];
  const budget = new DocumentBudget();
  for (const f of files) {
    const text = expandEnvRefs(f, errors, process.env, origin);
    let one = cache?.lookup(f.path, text);
    if (one) {
      try {
        budget.take(one.documents);
      } catch (e) {
        if (!(e instanceof YamlRefused)) throw e;
        one = undefined; // parsed again: the refusal is reported where the cap is crossed
      }
    }
    if (!one) {
      one = yield* loadFile(f.path, text, budget);
      if (!one.errors.some((e) => e.refused)) cache?.keep(f.path, text, one);
    }
    manifests.push(...one.manifests);
    errors.push(...one.errors);
    if (one.errors.some((e) => e.refused)) break;
    yield;
  }
  cache?.keepOnly(files.map((f) => f.path));
  let resolved = manifests;
  if (rewrite) {
    const r = rewrite(manifests);
    resolved = r.manifests;
    errors.push(...r.errors);
  }
  errors.push(...resolveReferences(resolved, external));
  errors.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column));
  return { manifests: resolved, errors, contentHash: contentHash(files) };
}

/** Parses and validates one file's (expanded) text: what it gives depends on nothing else. */
function* loadFile(path: string, text: string, budget: DocumentBudget): Generator<void, LoadedFile> {
  const used = budget.used;
  const { documents, errors } = yield* parseFileSteps(path, text, budget);
  const manifests: Manifest[] = [];
  for (const doc of documents) {
    const problems = validateDocument(doc);
    yield;
    if (problems.length) {
      errors.push(...problems);
      continue;
    }
    const v = doc.value as Omit<Manifest, 'file' | 'line' | 'positionOf'>;
    manifests.push({ ...v, file: doc.file, line: doc.positionOf([]).line, positionOf: (p) => doc.positionOf(p) });
  }
  return { manifests, errors, documents: budget.used - used };
}
