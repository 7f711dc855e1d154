import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { kindOf } from '../kinds/index.js';
import type { ObjectState } from './state.js';
import type { Manifest, ManifestError } from './types.js';

export { normaliseDeployments } from '../kinds/service.js';

/** Digest standing for a secret value in comparisons; the value itself never leaves apply. */
export const secretDigest = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex')}`;
/** A map with write-only values (a kind's sealedMaps) as compared: its names, each value's digest. */
export const mapDigest = (map: Record<string, string>) =>
  Object.fromEntries(Object.entries(map).map(([name, value]) => [name, secretDigest(value)]));

export interface SecretSources {
  env: Record<string, string | undefined>;
  /** Base of relative valueFrom.file paths; null: file references are refused. */
  baseDir: string | null;
  /** Values of SOPS files, decrypted in memory (controller/manifests/sops/), by the key valueFrom.sops names. */
  sops?: Map<string, string>;
}

type ValueFrom = { env?: string; file?: string; sops?: string };

/**
 * Turns validated manifests into desired object states, as each kind's descriptor maps them.
 * valueFrom references are read here (errors name the file and line); references between
 * objects stay names.
 */
export function desiredStates(manifests: Manifest[], revision: string, secrets: SecretSources): { objects: ObjectState[]; errors: ManifestError[] } {
  const errors: ManifestError[] = [];
  // Objects known by a field rather than by metadata.name (a ContainerImage by its imageName).
  const identities = new Map<string, string>();
  for (const m of manifests) {
    const field = kindOf(m.kind).manifest.identity;
    if (field) identities.set(`${m.kind}/${m.metadata.environment}/${m.metadata.name}`, m.spec[field]);
  }
  const readSecret = (m: Manifest, path: string[], ref: ValueFrom): string | undefined => {
    const fail = (message: string) => void errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message });
    if (ref.sops !== undefined) {
      const v = secrets.sops?.get(ref.sops);
      if (v === undefined) return fail('valueFrom.sops is set by the controller for the values of a *.sops.yaml file; write the value in a SOPS-encrypted file instead');
      return v;
    }
    if (ref.env !== undefined) {
      const v = secrets.env[ref.env];
      if (v === undefined) return fail(`environment variable ${ref.env} is not set on the controller`);
      return v;
    }
    if (!secrets.baseDir && !isAbsolute(ref.file!)) return fail('valueFrom.file needs MANIFESTS_DIR (relative paths are read from it)');
    try {
      return readFileSync(isAbsolute(ref.file!) ? ref.file! : join(secrets.baseDir!, ref.file!), 'utf8').replace(/\r?\n$/, '');
    } catch {
      return fail(`cannot read file ${ref.file}`);
    }
  };

  const objects = manifests.map((m): ObjectState => {
    const kind = kindOf(m.kind);
    const secretFields = kind.secrets ?? [];
    const plain: Record<string, any> = { ...m.spec };
    for (const f of secretFields) delete plain[(f.valueFrom ?? [f.field])[0]];
    const fields: Record<string, unknown> = kind.manifest.desired
      ? kind.manifest.desired(plain, m.metadata.name)
      : { ...kind.manifest.defaults, ...plain };
    // A reference to an object known by a field names it by that field, as the store does.
    for (const r of kind.references ?? []) {
      const identity = r.column && identities.get(`${r.kind}/${m.metadata.environment}/${fields[r.path]}`);
      if (identity) fields[r.path] = identity;
    }
    const secretValues: Record<string, string> = {};
    for (const f of secretFields) {
      const at = f.valueFrom ?? [f.field, 'valueFrom'];
      const ref = at.reduce<any>((v, k) => v?.[k], m.spec) as ValueFrom | undefined;
      if (!ref) continue;
      const path = ['spec', ...at];
      const value = readSecret(m, path, ref);
      if (value === undefined) continue;
      const problem = f.check?.(value);
      if (problem) {
        errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message: problem });
        continue;
      }
      secretValues[f.field] = value;
      fields[f.field] = secretDigest(value);
    }
    const sealedMapValues: Record<string, Record<string, string>> = {};
    for (const f of kind.sealedMaps ?? []) {
      if (fields[f] == null) continue;
      sealedMapValues[f] = fields[f] as Record<string, string>;
      fields[f] = mapDigest(sealedMapValues[f]);
    }
    const problem = kind.problem?.(fields);
    if (problem) errors.push({ file: m.file, ...m.positionOf(['spec', problem.field]), path: `spec/${problem.field}`, message: problem.message });
    const identity = kind.manifest.identity;
    return {
      kind: m.kind, environment: m.metadata.environment, name: identity ? m.spec[identity] : m.metadata.name, fields,
      ...(Object.keys(secretValues).length && { secretValues }),
      ...(Object.keys(sealedMapValues).length && { sealedMapValues }),
      source: {
        kind: 'manifest', path: m.file, revision, fields: Object.keys(fields).sort(),
        ...(identity && { name: m.metadata.name }),
        ...(m.metadata.labels && Object.keys(m.metadata.labels).length && { labels: m.metadata.labels }),
      },
    };
  });
  return { objects, errors };
}
