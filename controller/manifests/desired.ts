import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { kindOf } from '../kinds/index.js';
import type { ObjectState } from './state.js';
import type { Manifest, ManifestError } from './types.js';
import type { SecretField } from '../kinds/kind.js';
import { controllerHostRefusal, secretRefEnvironment, secretRefMissing, valueFromRefusal, type ManifestOrigin, type ValueFrom } from './reference-policy.js';

export { normaliseDeployments } from '../kinds/service.js';

/** Digest standing for a secret value in comparisons; the value itself never leaves apply. */
export const secretDigest = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex')}`;
/** A map with write-only values (a kind's sealedMaps) as compared: its names, each value's digest. */
export const mapDigest = (map: Record<string, string>) =>
  Object.fromEntries(Object.entries(map).map(([name, value]) => [name, secretDigest(value)]));

export interface SecretSources {
  /** Whose manifests these are: decides what they may read (reference-policy.ts). */
  origin: ManifestOrigin;
  env: Record<string, string | undefined>;
  /** Base of relative valueFrom.file paths; null: file references are refused. */
  baseDir: string | null;
  /** Values of SOPS files, decrypted in memory (controller/manifests/sops/), by the key valueFrom.sops names. */
  sops?: Map<string, string>;
  /** The value of a Secret the store holds, by environment and key (valueFrom.secretRef). */
  storedSecret?(environment: string, key: string): string | undefined;
}

/** A secretRef waits until every manifest was read: it may name a Secret the same apply writes. */
interface PendingRef { m: Manifest; path: string[]; field: SecretField; object: ObjectState; secretValues: Record<string, string>; name: string }

/**
 * Turns validated manifests into desired object states, as each kind's descriptor maps them.
 * valueFrom references are read here (errors name the file and line; what the origin may read
 * is reference-policy.ts's to say); references between objects stay names.
 */
export function desiredStates(manifests: Manifest[], revision: string, secrets: SecretSources): { objects: ObjectState[]; errors: ManifestError[] } {
  const errors: ManifestError[] = [];
  // Objects known by a field rather than by metadata.name (a ContainerImage by its imageName).
  const identities = new Map<string, string>();
  for (const m of manifests) {
    const field = kindOf(m.kind).manifest.identity;
    if (field) identities.set(`${m.kind}/${m.metadata.environment}/${m.metadata.name}`, m.spec[field]);
  }
  const fail = (m: Manifest, path: string[], message: string) => void errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message });
  const readSecret = (m: Manifest, path: string[], ref: ValueFrom): string | undefined => {
    const refused = valueFromRefusal(secrets.origin, ref);
    if (refused) return fail(m, path, refused);
    if (ref.sops !== undefined) {
      const v = secrets.sops?.get(ref.sops);
      if (v === undefined) return fail(m, path, 'valueFrom.sops is set by the controller for the values of a *.sops.yaml file; write the value in a SOPS-encrypted file instead');
      return v;
    }
    if (ref.env !== undefined) {
      const v = secrets.env[ref.env];
      if (v === undefined) return fail(m, path, `environment variable ${ref.env} is not set on the controller`);
      return v;
    }
    if (!secrets.baseDir && !isAbsolute(ref.file!)) return fail(m, path, 'valueFrom.file needs MANIFESTS_DIR (relative paths are read from it)');
    try {
      return readFileSync(isAbsolute(ref.file!) ? ref.file! : join(secrets.baseDir!, ref.file!), 'utf8').replace(/\r?\n$/, '');
    } catch {
      return fail(m, path, `cannot read file ${ref.file}`);
    }
  };
  /** A value read for a secret field: checked, kept for sealing, compared by its digest only. */
  const accept = (m: Manifest, path: string[], f: SecretField, value: string, object: ObjectState, secretValues: Record<string, string>) => {
    const problem = f.check?.(value);
    if (problem) return fail(m, path, problem);
    secretValues[f.field] = value;
    object.fields[f.field] = secretDigest(value);
  };
  const pending: PendingRef[] = [];

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
    const identity = kind.manifest.identity;
    const object: ObjectState = { kind: m.kind, environment: m.metadata.environment, name: identity ? m.spec[identity] : m.metadata.name, fields };
    for (const f of secretFields) {
      const at = f.valueFrom ?? [f.field, 'valueFrom'];
      const ref = at.reduce<any>((v, k) => v?.[k], m.spec) as ValueFrom | undefined;
      if (!ref) continue;
      const path = ['spec', ...at];
      if (ref.secretRef !== undefined) {
        pending.push({ m, path, field: f, object, secretValues, name: ref.secretRef });
        continue;
      }
      const value = readSecret(m, path, ref);
      if (value !== undefined) accept(m, path, f, value, object, secretValues);
    }
    const sealedMapValues: Record<string, Record<string, string>> = {};
    for (const f of kind.sealedMaps ?? []) {
      if (fields[f] == null) continue;
      sealedMapValues[f] = fields[f] as Record<string, string>;
      fields[f] = mapDigest(sealedMapValues[f]);
    }
    const problem = kind.problem?.(fields);
    const hostRefusal = controllerHostRefusal(secrets.origin, m.kind, fields);
    if (hostRefusal) fail(m, ['spec', m.kind === 'Server' ? 'dockerMode' : 'settings'], hostRefusal);
    if (problem) errors.push({ file: m.file, ...m.positionOf(['spec', problem.field]), path: `spec/${problem.field}`, message: problem.message });
    return Object.assign(object, {
      secretValues,
      ...(Object.keys(sealedMapValues).length && { sealedMapValues }),
      source: {
        kind: 'manifest', path: m.file, revision, fields: Object.keys(fields).sort(),
        ...(identity && { name: m.metadata.name }),
        ...(m.metadata.labels && Object.keys(m.metadata.labels).length && { labels: m.metadata.labels }),
      } satisfies ObjectState['source'],
    });
  });
  resolveSecretRefs(pending, objects, secrets, fail, accept);
  for (const o of objects) {
    // a value a secretRef read is a field the manifest sets (and owns) like the others
    o.source!.fields = Object.keys(o.fields).sort();
    if (o.secretValues && !Object.keys(o.secretValues).length) delete o.secretValues;
  }
  return { objects, errors };
}

/**
 * `valueFrom: {secretRef: NAME}`: the value of the Secret NAME of the manifest's own environment,
 * the one this apply writes when it holds one (itself read from SOPS, a file, or another
 * secretRef), else the store's. Another environment's Secret is never looked at.
 */
function resolveSecretRefs(
  pending: PendingRef[], objects: ObjectState[], secrets: SecretSources,
  fail: (m: Manifest, path: string[], message: string) => void,
  accept: (m: Manifest, path: string[], f: SecretField, value: string, object: ObjectState, secretValues: Record<string, string>) => void,
) {
  const desiredSecret = new Map(objects.filter((o) => o.kind === 'Secret').map((o) => [`${o.environment}/${o.name}`, o]));
  const waiting = new Set(pending);
  // a chain of secretRefs resolves one link per round; what is still waiting after a round without progress is a cycle
  for (let progress = true; waiting.size && progress;) {
    progress = false;
    for (const p of [...waiting]) {
      const environment = secretRefEnvironment(p.m);
      const inApply = environment === undefined ? undefined : desiredSecret.get(`${environment}/${p.name}`);
      if (inApply && p.object !== inApply && waitingFor(waiting, inApply)) continue;
      waiting.delete(p);
      progress = true;
      if (inApply === p.object) {
        fail(p.m, [...p.path, 'secretRef'], `valueFrom.secretRef: the Secret ${p.name} cannot take its value from itself`);
        continue;
      }
      const value = inApply ? inApply.secretValues?.value : environment === undefined ? undefined : secrets.storedSecret?.(environment, p.name);
      if (value === undefined) {
        fail(p.m, [...p.path, 'secretRef'], inApply
          ? `valueFrom.secretRef: the Secret ${p.name} of this apply has no value (see its own error)`
          : secretRefMissing(p.name, environment));
      } else accept(p.m, p.path, p.field, value, p.object, p.secretValues);
    }
  }
  for (const p of waiting) fail(p.m, [...p.path, 'secretRef'], `valueFrom.secretRef: ${p.name} refers back to this Secret through other secretRefs`);
}

const waitingFor = (waiting: Set<PendingRef>, o: ObjectState) => [...waiting].some((p) => p.object === o);
