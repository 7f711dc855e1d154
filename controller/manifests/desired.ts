import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { parsePrivateKey } from '../servers/ssh-key.js';
import type { ObjectState } from './state.js';
import type { Manifest, ManifestError } from './types.js';

/** Digest standing for a secret value in comparisons; the value itself never leaves apply. */
export const secretDigest = (value: string) => `sha256:${createHash('sha256').update(value).digest('hex')}`;

export interface SecretSources {
  env: Record<string, string | undefined>;
  /** Base of relative valueFrom.file paths; null: file references are refused. */
  baseDir: string | null;
}

/** The key must parse, so a wrong file is an error of the folder and not a deploy failure later. */
function checkSshKey(value: string): string | null {
  try {
    parsePrivateKey(value);
    return null;
  } catch (e) {
    return `not a usable SSH private key: ${(e as Error).message}`;
  }
}

const SERVICE_DEFAULTS = { type: null, env: {}, ports: [], volumes: [], command: null, healthCheck: null, composeTemplate: null };

/**
 * Turns validated manifests into desired object states. valueFrom references are read here
 * (errors name the file and line); references between objects stay names.
 */
export function desiredStates(manifests: Manifest[], revision: string, secrets: SecretSources): { objects: ObjectState[]; errors: ManifestError[] } {
  const errors: ManifestError[] = [];
  const images = new Map(manifests.filter((m) => m.kind === 'ContainerImage').map((m) => [`${m.metadata.environment}/${m.metadata.name}`, m.spec.imageName as string]));
  const readSecret = (m: Manifest, path: string[], ref: { env?: string; file?: string }): string | undefined => {
    const fail = (message: string) => void errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message });
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
    const spec = m.spec;
    const fields: Record<string, unknown> = {};
    const secretValues: Record<string, string> = {};
    let name = m.metadata.name;
    const setSecret = (field: string, path: string[], ref: { env?: string; file?: string }, check?: (v: string) => string | null) => {
      const value = readSecret(m, path, ref);
      if (value === undefined) return;
      const problem = check?.(value);
      if (problem) return void errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message: problem });
      secretValues[field] = value;
      fields[field] = secretDigest(value);
    };
    switch (m.kind) {
      case 'Environment':
        if ('description' in spec) fields.description = spec.description;
        if (spec.sshPrivateKey) setSecret('sshPrivateKey', ['spec', 'sshPrivateKey', 'valueFrom'], spec.sshPrivateKey.valueFrom, checkSshKey);
        for (const [module, values] of Object.entries(spec.settings ?? {})) {
          for (const [k, v] of Object.entries(values as object)) fields[`settings.${module}.${k}`] = v;
        }
        break;
      case 'Registry': {
        const { token, password, ...plain } = spec;
        Object.assign(fields, plain);
        if (token) setSecret('token', ['spec', 'token', 'valueFrom'], token.valueFrom);
        if (password) setSecret('password', ['spec', 'password', 'valueFrom'], password.valueFrom);
        break;
      }
      case 'ContainerImage':
        name = spec.imageName;
        Object.assign(fields, { registry: spec.registry ?? null, autoUpdate: spec.autoUpdate ?? false, imageName: spec.imageName });
        break;
      case 'Service': {
        const { image, deployments, dependsOn, configFiles, ...plain } = spec;
        Object.assign(fields, { ...SERVICE_DEFAULTS, ...plain });
        fields.image = images.get(`${m.metadata.environment}/${image}`) ?? image;
        fields.deployments = normaliseDeployments(m.metadata.name, deployments ?? []);
        fields.dependsOn = [...(dependsOn ?? [])].sort();
        if (configFiles) fields.configFiles = [...configFiles].map((c) => ({ name: c.name, targetPath: c.targetPath })).sort(byJson);
        break;
      }
      case 'Secret':
        setSecret('value', ['spec', 'valueFrom'], spec.valueFrom);
        if ('description' in spec) fields.description = spec.description;
        break;
      case 'WebhookSubscription': {
        const { secret, ...plain } = spec;
        Object.assign(fields, plain);
        if (secret) setSecret('secret', ['spec', 'secret', 'valueFrom'], secret.valueFrom);
        break;
      }
      default:
        Object.assign(fields, spec);
    }
    return {
      kind: m.kind, environment: m.metadata.environment, name, fields,
      ...(Object.keys(secretValues).length && { secretValues }),
      source: {
        kind: 'manifest', path: m.file, revision, fields: Object.keys(fields).sort(),
        ...(m.kind === 'ContainerImage' && { name: m.metadata.name }),
        ...(m.metadata.labels && Object.keys(m.metadata.labels).length && { labels: m.metadata.labels }),
      },
    };
  });
  return { objects, errors };
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

export function normaliseDeployments(service: string, list: Array<{ server: string; containerName?: string; composePath?: string | null }>) {
  return list.map((d) => ({ server: d.server, containerName: d.containerName ?? service, composePath: d.composePath ?? null })).sort(byJson);
}
