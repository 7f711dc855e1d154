// What a revision holds, as pure functions: the service's template as it was accepted (what a
// rollout or a fallback renders again), and the whole container each deployment was rendered to,
// with every secret as a reference and a version (`${secret:KEY@v1a2b3c4d5e6}`), never a value.
// Two revisions are compared field by field (paths) and as a unified diff of their YAML.
import type { VolumeEntry } from '../../controller/model/volume-mount.js';
import { createHash, createHmac } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import type { HealthCheck, ServiceRow, ServiceSpec, UpdateOrder } from '../../controller/store/repositories/services.js';
import { renderEnv } from '../../controller/deploy/compose/render-env.js';
import { canonicalJson, type DesiredContainer, type DesiredHealthcheck } from '../../controller/model/desired-container.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from '../../controller/model/restart-policy.js';
import type { Ingress } from '../../controller/model/ingress.js';

/** The service fields a rollout renders from: what PATCH, manifests, deploys and reverts write. */
export interface RevisionTemplate {
  command: string[] | null;
  /** As written: `${KEY}` placeholders of vars and secrets stay placeholders. */
  env: Record<string, string>;
  ports: string[];
  volumes: VolumeEntry[];
  healthCheck: HealthCheck | null;
  composeTemplate: string | null;
  updateOrder: UpdateOrder;
  drainSec: number;
  /**
   * Only when not the default unless-stopped: the revisions of services that never set it stay
   * what they were (same hash, no new number), and one without it means unless-stopped.
   */
  restartPolicy?: RestartPolicy;
  /** Only when set (docs/ingress.md): a route changes no container, but a revision says where the service was reached. */
  ingress?: Ingress;
}

export interface RevisionFile { attachmentId: string; configFileId: string; configFileName: string; targetPath: string; mode: number | null }

/** One deployment's rendered container: the desired container less anything secret. */
export interface RevisionDeployment {
  deploymentId: string;
  serverId: string;
  serverName: string;
  containerName: string;
  mode: string;
  image: string;
  command: string[] | null;
  /** Vars rendered, secrets as `${secret:KEY@version}`. */
  env: Record<string, string> | null;
  ports: string[] | null;
  volumes: string[] | null;
  restart: string | null;
  healthcheck: DesiredHealthcheck | null;
  networks: string[];
  networkAlias: string | null;
  files: Array<{ targetPath: string; mode: number; contentHash: string }>;
  /** The container's stevedore.spec-hash when the revision was made (a keyed hash: values stay secret). */
  specHash: string;
}

export interface RevisionSpec {
  image: { containerImageId: string; name: string; tag: string };
  template: RevisionTemplate;
  files: RevisionFile[];
  /** Each secret the env refers to, by key: its version (a keyed hash of the value). */
  secrets: Record<string, string>;
  deployments: RevisionDeployment[];
}

export const TEMPLATE_FIELDS = ['command', 'env', 'ports', 'volumes', 'healthCheck', 'composeTemplate', 'updateOrder', 'drainSec', 'restartPolicy', 'ingress'] as const;

export function templateOf(s: Pick<ServiceRow, (typeof TEMPLATE_FIELDS)[number]>): RevisionTemplate {
  const restartPolicy = s.restartPolicy ?? DEFAULT_RESTART_POLICY;
  return {
    command: s.command ?? null, env: s.env ?? {}, ports: s.ports ?? [], volumes: s.volumes ?? [], healthCheck: s.healthCheck ?? null,
    composeTemplate: s.composeTemplate ?? null, updateOrder: s.updateOrder ?? 'stop-first', drainSec: s.drainSec ?? 5,
    ...(restartPolicy !== DEFAULT_RESTART_POLICY && { restartPolicy }),
    ...(s.ingress && { ingress: s.ingress }),
  };
}

/** The template with what it leaves out when default (restartPolicy, no ingress): restored and diffed by value either way. */
const withDefaults = (t: RevisionTemplate): Omit<Required<RevisionTemplate>, 'ingress'> & { ingress: Ingress | null } =>
  ({ ...t, restartPolicy: t.restartPolicy ?? DEFAULT_RESTART_POLICY, ingress: t.ingress ?? null });

/** A secret's version: a keyed hash of its value, short; the same value gives the same version. */
export const secretVersion = (hashKey: Buffer, value: string) => `v${createHmac('sha256', hashKey).update(value).digest('hex').slice(0, 12)}`;

export interface RevisionInput {
  image: RevisionSpec['image'];
  template: RevisionTemplate;
  files: RevisionFile[];
  /** The environment's vars and secrets (values: only their versions are kept). */
  vars: Record<string, string>;
  secrets: Record<string, string>;
  hashKey: Buffer;
  /** Each deployment's desired container, rendered from the same template. */
  rendered: DesiredContainer[];
}

export function revisionSpecOf(i: RevisionInput): RevisionSpec {
  const refs = Object.fromEntries(Object.entries(i.secrets).map(([k, v]) => [k, `\${secret:${k}@${secretVersion(i.hashKey, v)}}`]));
  const env = renderEnv(i.template.env, { vars: i.vars, secrets: refs }).values;
  const used = new Set<string>();
  for (const v of Object.values(i.template.env)) for (const m of v.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)) if (m[1] in i.secrets) used.add(m[1]);
  return {
    image: i.image,
    template: i.template,
    files: [...i.files].sort((a, b) => a.targetPath.localeCompare(b.targetPath)),
    secrets: Object.fromEntries([...used].sort().map((k) => [k, secretVersion(i.hashKey, i.secrets[k])])),
    deployments: [...i.rendered].sort((a, b) => `${a.serverName}/${a.containerName}`.localeCompare(`${b.serverName}/${b.containerName}`)).map((d) => ({
      deploymentId: d.deploymentId, serverId: d.serverId, serverName: d.serverName, containerName: d.containerName, mode: d.mode,
      image: d.image, command: d.command, env: d.env === null ? null : env, ports: d.ports, volumes: d.volumes, restart: d.restart,
      healthcheck: d.healthcheck, networks: d.networks, networkAlias: d.networkAlias,
      files: d.files.map((f) => ({ targetPath: f.targetPath, mode: f.mode, contentHash: f.contentHash })),
      specHash: d.specHash,
    })),
  };
}

export const revisionHash = (spec: RevisionSpec) => createHash('sha256').update(canonicalJson(spec)).digest('hex');

/** The spec fields a revision restores (revert, a rollback's outcome): its template, image and tag. */
export function specOfRevision(spec: RevisionSpec): ServiceSpec {
  return { ...withDefaults(spec.template), imageTag: spec.image.tag, containerImageId: spec.image.containerImageId };
}

/** The service as the revision asked for it: its template fields and tag over today's row. */
export function serviceAtRevision<T extends ServiceRow>(service: T, spec: RevisionSpec): T {
  return { ...service, ...specOfRevision(spec) };
}

export interface RevisionChange { path: string; from: unknown; to: unknown }

/**
 * Field paths that differ between two specs: objects by key, deployments by
 * server/container, lists (ports, command, …) as whole values. A deployment's spec hash is left
 * out: it moves with any other change and says nothing of its own.
 */
export function revisionChanges(a: RevisionSpec, b: RevisionSpec): RevisionChange[] {
  const left = flatten(comparable(a));
  const right = flatten(comparable(b));
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort();
  return paths.filter((p) => canonicalJson(left.get(p)) !== canonicalJson(right.get(p)))
    .map((path) => ({ path, from: left.get(path) ?? null, to: right.get(path) ?? null }));
}

function comparable(s: RevisionSpec): Record<string, unknown> {
  return {
    ...s,
    template: withDefaults(s.template),
    files: Object.fromEntries(s.files.map(({ targetPath, ...f }) => [targetPath, f])),
    deployments: Object.fromEntries(s.deployments.map(({ specHash: _h, ...d }) => [`${d.serverName}/${d.containerName}`, d])),
  };
}

function flatten(v: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length) {
    for (const [k, x] of Object.entries(v)) flatten(x, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, v);
  }
  return out;
}

/** A unified diff of the two specs as YAML (keys sorted), labelled with their revision numbers. */
export function unifiedRevisionDiff(from: { revision: number; spec: RevisionSpec }, to: { revision: number; spec: RevisionSpec }): string {
  const text = (s: RevisionSpec) => stringify(JSON.parse(canonicalJson({ ...s, template: withDefaults(s.template) })), { lineWidth: 0 });
  return createTwoFilesPatch(`revision ${from.revision}`, `revision ${to.revision}`, text(from.spec), text(to.spec), '', '', { context: 3 });
}
