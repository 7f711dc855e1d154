// A pull request's manifests made into its preview environment's (pure; docs/git-sources.md#previews).
// A pull request is written by whoever opens it, so everything a preview may reach is decided here,
// from the source's `previews`, never from the commit:
// - its objects belong to `<env>-pr-<number>` (a manifest naming the parent is taken as the preview's);
// - it runs only on the parent's servers the selector chose: Server and ServerCluster manifests are
//   left out, each service gets one deployment on each chosen server (its own deployments and
//   serverSelector are not read), and any other reference to a server must name a chosen one;
// - its container names carry `-pr-<number>` (names are unique per server, beside the parent's);
// - it publishes no host port (the parent's containers hold them on the same servers); it is reached
//   through the ingress proxy at the host of hostTemplate, and without one it has no ingress at all
//   (the manifest's hosts are the parent's);
// - it mounts no Docker volume by a name of its own choosing (short syntax `pgdata:/data`): on the
//   parent's servers that name may be the parent's unmanaged volume; a Volume of the commit is its own;
// - it reads the parent's secrets only by reference, `${NAME}` in a service's env, and only those
//   `previews.secrets` lists; `valueFrom: {secretRef}` may name only a Secret of the same commit
//   (anything else would copy a value out of the parent).
import { kindOf, referencesOf } from '../../kinds/index.js';
import type { Manifest, ManifestError } from '../types.js';
import { namedSource } from '../../deploy/container-policy.js';
import { previewHost, previewSuffix } from './preview-config.js';

export interface PreviewPlacement {
  /** The parent environment's name, and the preview's. */
  parentEnvironment: string;
  environment: string;
  number: number;
  /** The parent's servers previews.serverSelector chose, by name. */
  servers: string[];
  hostTemplate: string | null;
  /** previews.secrets. */
  allowedSecrets: string[];
  /** Keys of the parent's secrets (names only: no value is read here). */
  parentSecretKeys: string[];
}

const PLACEHOLDER = /\$\{([A-Z_][A-Z0-9_]*)\}/g;
const LEFT_OUT = new Set(['Server', 'ServerCluster']);

/** Every `valueFrom: {secretRef}` and `tls: {secretRef}` of a spec, with its document path. */
function secretRefsOf(value: unknown, path: string[], out: Array<{ name: string; path: string[] }> = []) {
  if (Array.isArray(value)) value.forEach((v, i) => secretRefsOf(v, [...path, String(i)], out));
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.secretRef === 'string' && (path.at(-1) === 'valueFrom' || path.at(-1) === 'tls')) out.push({ name: o.secretRef, path: [...path, 'secretRef'] });
    for (const [k, v] of Object.entries(o)) secretRefsOf(v, [...path, k], out);
  }
  return out;
}

export function previewManifests(manifests: Manifest[], p: PreviewPlacement): { manifests: Manifest[]; errors: ManifestError[] } {
  const errors: ManifestError[] = [];
  const err = (m: Manifest, path: string[], message: string) => errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message });
  const mine = (m: Manifest) => m.metadata.environment === undefined || m.metadata.environment === p.parentEnvironment;
  const ofCommit = new Set(manifests.filter((m) => (m.kind === 'Secret' || m.kind === 'Var') && mine(m)).map((m) => m.metadata.name));
  const allowed = new Set(p.allowedSecrets);
  const parentSecrets = new Set(p.parentSecretKeys);
  const listed = p.allowedSecrets.length ? p.allowedSecrets.join(', ') : 'none';
  const chosen = new Set(p.servers);
  const out: Manifest[] = [];
  for (const m of manifests) {
    if (!mine(m) || m.kind === 'Environment') {
      out.push(m); // the source's scope check reports it at its file and line
      continue;
    }
    if (LEFT_OUT.has(m.kind)) continue;
    const spec = structuredClone(m.spec);
    for (const ref of secretRefsOf(spec, ['spec'])) {
      if (ofCommit.has(ref.name)) continue;
      if (parentSecrets.has(ref.name) && !allowed.has(ref.name)) {
        err(m, ref.path, `a preview may not use the secret ${ref.name} of ${p.parentEnvironment}: previews.secrets does not list it (it lists ${listed})`);
      } else {
        err(m, ref.path, `a preview reads ${p.parentEnvironment}'s secrets only by reference, as \${${ref.name}} in a service's env (listed in previews.secrets); `
          + 'valueFrom and tls may name only a Secret of the same commit');
      }
    }
    if (m.kind === 'Service') {
      for (const [key, template] of Object.entries((spec.env ?? {}) as Record<string, string>)) {
        for (const [, name] of String(template).matchAll(PLACEHOLDER)) {
          if (!ofCommit.has(name!) && parentSecrets.has(name!) && !allowed.has(name!)) {
            err(m, ['spec', 'env', key], `a preview may not use the secret ${name} of ${p.parentEnvironment}: previews.secrets does not list it (it lists ${listed})`);
          }
        }
      }
      ((spec.volumes ?? []) as unknown[]).forEach((v, i) => {
        const named = typeof v === 'string' ? namedSource(v) : null;
        if (named !== null) {
          err(m, ['spec', 'volumes', String(i)], `a preview may not mount the Docker volume ${named} by name: on ${p.parentEnvironment}'s servers it may be ${p.parentEnvironment}'s; `
            + 'mount a Volume of the same commit ({volume, mount}), which is the preview\'s own');
        }
      });
      const containerName = `${m.metadata.name}${previewSuffix(p.number)}`;
      spec.deployments = p.servers.map((server) => ({ server, containerName }));
      delete spec.serverSelector;
      spec.ports = [];
      if (spec.ingress && p.hostTemplate) spec.ingress = { ...spec.ingress, hosts: [previewHost(p.hostTemplate, p.number)] };
      else delete spec.ingress;
    } else {
      for (const r of referencesOf(kindOf(m.kind), spec)) {
        if (r.kind === 'Server' && !chosen.has(r.name)) {
          err(m, r.path, `a preview runs only on the servers of ${p.parentEnvironment} that previews.serverSelector selects (${p.servers.join(', ') || 'none'}), not on ${r.name}`);
        }
      }
    }
    out.push({ ...m, metadata: { ...m.metadata, environment: p.environment }, spec });
  }
  return { manifests: out, errors };
}
