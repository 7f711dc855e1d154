/** Shapes shared by the manifest loader, diff, apply, watcher, API and CLI. */

/** One file of a manifests folder, as read from disk or sent by the CLI. */
export interface ManifestFile {
  /** Path relative to the folder, with forward slashes (what errors and `source.path` show). */
  path: string;
  content: string;
}

/** One problem in a folder. Every problem is reported; a folder with any applies nothing. */
export interface ManifestError {
  file: string;
  line: number;
  column: number;
  /** Where in the document, like Kamal's `spec/deployments/0/server`; '' for the document itself. */
  path: string;
  message: string;
  /** A limit was reached (controller/yaml/read-yaml.ts): the file was not read to its end. */
  refused?: boolean;
}

/** One valid document. `spec` is the parsed YAML, validated against its kind's schema. */
export interface Manifest {
  apiVersion: 'stevedore/v1';
  kind: string;
  metadata: { name: string; environment?: string; labels?: Record<string, string> };
  spec: Record<string, any>;
  /** Where it came from. */
  file: string;
  line: number;
  /** Position of a document path in its file, for errors found after parsing (references). */
  positionOf(path: string[]): { line: number; column: number };
}

export interface LoadResult {
  manifests: Manifest[];
  errors: ManifestError[];
  /** `sha256:<hex>` of every file's path and content, in path order. */
  contentHash: string;
}

export class InvalidManifestsError extends Error {
  constructor(readonly errors: ManifestError[]) {
    super(`${errors.length} manifest error(s): ${errors.slice(0, 3).map(formatError).join('; ')}`);
    this.name = 'InvalidManifestsError';
  }
}

export const formatError = (e: ManifestError) =>
  `${e.file}:${e.line}:${e.column}: ${e.path ? `${e.path}: ` : ''}${e.message}`;

/** Identity of an object: kind, environment (absent for Environment) and name. */
export const keyOf = (kind: string, environment: string | undefined, name: string) => `${kind}/${environment ?? '-'}/${name}`;
