// The whole container a deployment should run, rendered from store data by one pure function.
// Direct mode creates the container from it, compose mode writes its files from it, and drift,
// dry runs and status compare it with what Docker reports. Its canonical form is hashed; the hash
// rides on the container as a label, so "same hash, running" means nothing to do.
import { createHmac } from 'node:crypto';
import type { HealthCheck, UpdateOrder } from '../../controller/store/repositories/services.js';
import { environmentNetworkName } from '../../controller/deploy/switch-names.js';
import { renderEnv, type EnvSources } from '../../controller/deploy/compose/render-env.js';
import { configFileHostPath, type ComposeDecision } from '../../controller/deploy/compose/compose-path-rules.js';

export type DeployMode = ComposeDecision['mode'];

export interface DesiredFile {
  attachmentId: string;
  configFileName: string;
  /** Where the container reads it. */
  targetPath: string;
  /** Where it is written on the server (under the deployment's own directory). */
  hostPath: string;
  mode: number;
  /** Keyed hash of the rendered bytes (the bytes may hold secrets). */
  contentHash: string;
}

export interface DesiredHealthcheck { test: string[]; intervalSec: number; timeoutSec: number; retries: number; startPeriodSec: number }

/**
 * A field that is null is not decided by Stevedore (a compose template or a hand-written compose
 * file decides it, or the image's default applies) and is neither set nor compared.
 */
export interface DesiredContainer {
  deploymentId: string;
  serviceId: string;
  serviceName: string;
  environmentId: string;
  serverId: string;
  serverName: string;
  containerName: string;
  mode: DeployMode;
  imageName: string;
  imageTag: string;
  /** imageName:imageTag */
  image: string;
  /** Image id (sha256:...) once resolved (after a pull, or recorded at the last deploy). */
  imageId: string | null;
  command: string[] | null;
  /** Rendered values, secrets included: never shown, only compared and hashed. */
  env: Record<string, string> | null;
  /** Keys whose value carries a secret (redacted in every preview). */
  secretKeys: string[];
  /** Placeholders no var or secret defines: a deploy refuses to start with any. */
  unresolved: string[];
  /** Normalised "ip:hostPort:containerPort/proto" (ip and hostPort may be empty), sorted. */
  ports: string[] | null;
  /** The service's volume strings as written, sorted (compared normalised). */
  volumes: string[] | null;
  files: DesiredFile[];
  /** Whether the files are bind-mounted (not in compose-external mode: that file is the user's). */
  mountFiles: boolean;
  restart: 'unless-stopped' | null;
  healthcheck: DesiredHealthcheck | null;
  /** Networks to join; empty: the mode's default (bridge directly, the project network in compose). */
  networks: string[];
  /** The name other containers reach it by on `networks` (start-first: the service name); null: none. */
  networkAlias: string | null;
  /** How the container is replaced: start-first only in direct mode (compose recreates stop-first). */
  updateOrder: UpdateOrder;
  /** start-first: seconds between the old container leaving the network and its stop. */
  drainSec: number;
  /** sha256 of the compose template the service uses, if any (it shapes the container). */
  composeTemplateHash: string | null;
  /** sha256 of the compose file Stevedore writes for it (compose-generated mode; set by the loader). */
  composeFileHash: string | null;
  /** Ownership labels plus stevedore.spec-hash. */
  labels: Record<string, string>;
  specHash: string;
}

export interface DesiredInput {
  service: {
    id: string; name: string; environmentId: string; env: Record<string, string> | null; ports: string[] | null;
    volumes: string[] | null; command: string[] | null; healthCheck: HealthCheck | null; composeTemplate: string | null;
    updateOrder?: UpdateOrder; drainSec?: number;
  };
  deployment: { id: string; containerName: string; serverId: string };
  serverName: string;
  imageName: string;
  imageTag: string;
  imageId?: string | null;
  mode: DeployMode;
  sources: EnvSources;
  /** Rendered config files attached to the service. */
  files: Array<{ attachmentId: string; configFileName: string; targetPath: string; mode: number; content: Buffer }>;
  /** Key of the spec hash: env values and file contents may be secrets, so the hash is keyed. */
  hashKey: Buffer;
}

export const LABEL = {
  managed: 'stevedore.managed',
  environment: 'stevedore.environment-id',
  service: 'stevedore.service-id',
  deployment: 'stevedore.deployment-id',
  specHash: 'stevedore.spec-hash',
  imageTag: 'stevedore.image-tag',
} as const;

/** "8080:80", "127.0.0.1:8080:80/udp", "80" -> "ip:hostPort:containerPort/proto". */
export function normalizePort(p: string): string {
  const [main, proto = 'tcp'] = p.split('/');
  const parts = main.split(':');
  const container = parts.at(-1)!;
  const host = parts.length >= 2 ? parts.at(-2)! : '';
  let ip = parts.length > 2 ? parts.slice(0, -2).join(':') : '';
  ip = ip.replace(/^\[(.*)\]$/, '$1');
  if (ip === '0.0.0.0' || ip === '::') ip = '';
  return `${ip}:${host}:${container}/${proto}`;
}

/** The short syntax docker and compose accept for a normalised port. */
export function portSyntax(n: string): string {
  const c = n.lastIndexOf(':');
  const h = n.lastIndexOf(':', c - 1);
  const [ip, host, rest] = [n.slice(0, h), n.slice(h + 1, c), n.slice(c + 1)];
  if (ip) return `${ip.includes(':') ? `[${ip}]` : ip}:${host}:${rest}`;
  return host ? `${host}:${rest}` : rest;
}

/** "src:dst[:opts]" -> "src:dst" or "src:dst:ro"; an anonymous "/dst" stays "/dst". */
export function normalizeVolume(v: string): string {
  const parts = v.split(':');
  if (parts.length === 1) return v;
  const ro = (parts[2] ?? '').split(',').includes('ro');
  return `${parts[0]}:${parts[1]}${ro ? ':ro' : ''}`;
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const keyedHash = (key: Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');
export const fileContentHash = keyedHash;

function healthcheckOf(h: HealthCheck | null): DesiredHealthcheck | null {
  if (!h) return null;
  return { test: h.test, intervalSec: h.intervalSec ?? 10, timeoutSec: h.timeoutSec ?? 5, retries: h.retries ?? 3, startPeriodSec: h.startPeriodSec ?? 0 };
}

export function renderDesired(i: DesiredInput): DesiredContainer {
  const { service, deployment: d } = i;
  const external = i.mode === 'compose-external';
  // a template (or a hand-written file) shapes the container; Stevedore then owns only the image,
  // the environment, the config-file mounts and the labels
  const shaped = external || !!service.composeTemplate;
  // start-first needs two containers of one service side by side and a name that moves between
  // them: the service name on the environment's network. Only direct mode creates containers itself.
  const startFirst = i.mode === 'direct' && service.updateOrder === 'start-first';
  const rendered = renderEnv(service.env ?? {}, i.sources);
  const files = [...i.files].sort((a, b) => a.targetPath.localeCompare(b.targetPath)).map((f) => ({
    attachmentId: f.attachmentId, configFileName: f.configFileName, targetPath: f.targetPath, mode: f.mode,
    hostPath: configFileHostPath(d.containerName, f.targetPath), contentHash: keyedHash(i.hashKey, f.content),
  }));
  const spec = {
    containerName: d.containerName,
    image: `${i.imageName}:${i.imageTag}`,
    command: shaped ? null : service.command?.length ? service.command : null,
    env: external ? null : rendered.values,
    ports: shaped ? null : [...new Set((service.ports ?? []).map(normalizePort))].sort(),
    volumes: shaped ? null : [...(service.volumes ?? [])].sort(),
    files: files.map((f) => ({ targetPath: f.targetPath, hostPath: f.hostPath, mode: f.mode, contentHash: f.contentHash })),
    mountFiles: !external,
    restart: shaped ? null : 'unless-stopped' as const,
    healthcheck: shaped ? null : healthcheckOf(service.healthCheck),
    networks: startFirst ? [environmentNetworkName(service.environmentId)] : [] as string[],
    // only when set: the spec hash of every other container stays what it was
    ...(startFirst && { networkAlias: service.name }),
    composeTemplateHash: service.composeTemplate && !external ? keyedHash(i.hashKey, service.composeTemplate) : null,
  };
  const specHash = keyedHash(i.hashKey, canonicalJson(spec));
  return {
    ...spec,
    deploymentId: d.id, serviceId: service.id, serviceName: service.name, environmentId: service.environmentId,
    serverId: d.serverId, serverName: i.serverName, mode: i.mode, imageName: i.imageName, imageTag: i.imageTag,
    networkAlias: startFirst ? service.name : null, updateOrder: startFirst ? 'start-first' : 'stop-first', drainSec: service.drainSec ?? 5,
    imageId: i.imageId ?? null, secretKeys: rendered.secretKeys, unresolved: rendered.unresolved, files,
    labels: {
      [LABEL.managed]: 'true', [LABEL.environment]: service.environmentId, [LABEL.service]: service.id,
      [LABEL.deployment]: d.id, [LABEL.imageTag]: i.imageTag, [LABEL.specHash]: specHash,
    },
    composeFileHash: null,
    specHash,
  };
}
