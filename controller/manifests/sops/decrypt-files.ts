import { stringify } from 'yaml';
import type { Services } from '../../services.js';
import { kindOf, KIND_NAMES } from '../../kinds/index.js';
import { documentsOf, DocumentBudget, valueOf, YamlRefused } from '../../yaml/read-yaml.js';
import type { ManifestError, ManifestFile } from '../types.js';
import { dataKeyOf } from './data-key.js';
import { decryptTree, metadataOf, SopsError } from './sops-tree.js';

export interface DecryptedFiles {
  /** The files to load: a SOPS file's text has its secret values replaced by `valueFrom: {sops: KEY}`. */
  files: ManifestFile[];
  /** Secret values, by the key their valueFrom.sops names; in memory only. */
  values: Map<string, string>;
  errors: ManifestError[];
}

export const IS_SOPS = /\.sops\.ya?ml$/i;

/**
 * Decrypts the SOPS files (`*.sops.yaml`) of a commit in memory with the environment's age
 * identity, checking each file's MAC. A SOPS file holds one manifest whose secret fields (a
 * Secret's `spec.value`, a Registry's `spec.password`, …) are written as plain strings before
 * encryption; they become `valueFrom: {sops}` references and their values are sealed at apply
 * like any secret. A file whose manifest sets no secret field but has encrypted values under
 * `spec` is refused (a Var's value would be stored in plain). Errors name the file and the path,
 * never a value.
 */
export async function decryptSopsFiles(s: Services, environmentId: string, files: ManifestFile[]): Promise<DecryptedFiles> {
  const sops = files.filter((f) => IS_SOPS.test(f.path));
  if (!sops.length) return { files, values: new Map(), errors: [] };
  const row = await s.gitSources.ageKeyOf(environmentId);
  const identity = row ? s.secretBox.open(row.identitySealed) : null;
  const values = new Map<string, string>();
  const errors: ManifestError[] = [];
  const out: ManifestFile[] = [];
  for (const f of files) {
    if (!IS_SOPS.test(f.path)) {
      out.push(f);
      continue;
    }
    const fail = (message: string, path: string[] = []) => void errors.push({ file: f.path, line: 1, column: 1, path: path.join('/'), message });
    if (!identity) {
      fail('this environment has no age identity to decrypt SOPS files: PUT /api/environments/{envId}/age-key');
      continue;
    }
    try {
      const doc = oneDocument(f.content);
      const key = await dataKeyOf(metadataOf(doc), identity);
      const { tree, encrypted } = decryptTree(doc, key);
      out.push({ path: f.path, content: stringify(referToValues(f.path, tree, encrypted, values)) });
    } catch (e) {
      if (e instanceof SopsError) fail(e.message, e.path);
      else throw e;
    }
  }
  return { files: out, values, errors };
}

function oneDocument(text: string): Record<string, unknown> {
  let doc: unknown;
  let count = 0;
  try {
    for (const d of documentsOf(text, { prettyErrors: false, uniqueKeys: true, budget: new DocumentBudget(2) })) {
      if (d.errors.length) throw new SopsError(`YAML: ${d.errors[0].message.split('\n')[0]}`);
      const v = d.contents === null ? null : valueOf(d);
      if (v === null || v === undefined) continue;
      doc = v;
      count++;
    }
  } catch (e) {
    if (e instanceof YamlRefused) throw new SopsError(`a SOPS file holds one document: ${e.message}`);
    throw e;
  }
  if (count !== 1 || !doc || typeof doc !== 'object' || Array.isArray(doc)) throw new SopsError('a SOPS file holds exactly one manifest (a mapping)');
  return doc as Record<string, unknown>;
}

/**
 * Moves the plain values of the manifest's secret fields into `values` and writes references in
 * their place.
 */
function referToValues(file: string, tree: Record<string, any>, encrypted: string[][], values: Map<string, string>): Record<string, unknown> {
  const kind = typeof tree.kind === 'string' && KIND_NAMES.includes(tree.kind) ? kindOf(tree.kind) : null;
  const spec = tree.spec && typeof tree.spec === 'object' ? tree.spec as Record<string, any> : null;
  const moved = new Set<string>();
  for (const f of kind?.secrets ?? []) {
    const plain = spec?.[f.field];
    if (typeof plain !== 'string') continue;
    const at = f.valueFrom ?? [f.field, 'valueFrom'];
    const key = `${file}#spec/${f.field}`;
    values.set(key, plain);
    delete spec![f.field];
    let node = spec!;
    for (const k of at.slice(0, -1)) node = (node[k] ??= {});
    node[at.at(-1)!] = { sops: key };
    moved.add(f.field);
  }
  const plainLeft = !moved.size && encrypted.find((p) => p[0] === 'spec');
  if (plainLeft) {
    throw new SopsError(`${plainLeft.join('/')} is encrypted, but ${tree.kind ?? 'this manifest'} has no secret field set in the file: its values would be stored in plain; `
      + 'keep secrets in a Secret (spec.value) or in the secret fields of a Registry, Database or WebhookSubscription', plainLeft);
  }
  return tree;
}
