import { kindOf, referencesOf as kindRefs } from '../kinds/index.js';
import type { Manifest, ManifestError } from './types.js';
import { keyOf } from './types.js';

/** Every by-name reference a manifest makes to another object of its environment (its kind's descriptor says where). */
export const referencesOf = (m: Manifest) => kindRefs(kindOf(m.kind), m.spec);

/**
 * Checks that every reference names an object of the folder or, on the server, of the store
 * (`external` holds keyOf(kind, env, name) of what already exists); also finds duplicate
 * objects and dependency cycles between services.
 */
export function resolveReferences(manifests: Manifest[], external: Set<string> = new Set()): ManifestError[] {
  const errors: ManifestError[] = [];
  const err = (m: Manifest, path: string[], message: string) =>
    errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message });
  const defined = new Map<string, Manifest>();
  for (const m of manifests) {
    const key = keyOf(m.kind, m.metadata.environment, m.metadata.name);
    const first = defined.get(key);
    if (first) err(m, ['metadata', 'name'], `${m.kind} '${m.metadata.name}' is already defined in ${first.file}:${first.line}`);
    else defined.set(key, m);
  }
  const exists = (key: string) => defined.has(key) || external.has(key);
  for (const m of manifests) {
    const env = m.metadata.environment;
    if (env !== undefined && !exists(keyOf('Environment', undefined, env))) {
      err(m, ['metadata', 'environment'], `unknown Environment '${env}'`);
      continue;
    }
    for (const r of referencesOf(m)) {
      if (!exists(keyOf(r.kind, env, r.name))) err(m, r.path, `unknown ${r.kind} '${r.name}' in environment '${env}'`);
    }
    if (m.kind === 'Service' && (m.spec.dependsOn ?? []).includes(m.metadata.name)) {
      err(m, ['spec', 'dependsOn'], 'a service cannot depend on itself');
    }
  }
  for (const m of findCycle(manifests)) err(m, ['spec', 'dependsOn'], `dependency cycle: service '${m.metadata.name}' depends on itself through spec.dependsOn`);
  return errors;
}

/** Services on a dependency cycle (within the folder), each reported once. */
function findCycle(manifests: Manifest[]): Manifest[] {
  const services = new Map(manifests.filter((m) => m.kind === 'Service').map((m) => [`${m.metadata.environment}/${m.metadata.name}`, m]));
  const state = new Map<string, 'visiting' | 'done'>();
  const onCycle = new Set<Manifest>();
  const visit = (key: string, stack: string[]) => {
    const m = services.get(key);
    if (!m || state.get(key) === 'done') return;
    if (state.get(key) === 'visiting') {
      for (const k of stack.slice(stack.indexOf(key))) onCycle.add(services.get(k)!);
      return;
    }
    state.set(key, 'visiting');
    for (const d of m.spec.dependsOn ?? []) if (d !== m.metadata.name) visit(`${m.metadata.environment}/${d}`, [...stack, key]);
    state.set(key, 'done');
  };
  for (const key of services.keys()) visit(key, []);
  return [...onCycle];
}
