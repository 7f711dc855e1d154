// The whole container a deployment should run, as the deployment reconciler renders it
// (reconcilers/deployment/desired.ts) and its effects create it: the types, the ownership labels
// and the canonical forms of ports, volumes and JSON that the spec hash and the comparisons use.
// Pure; shared by controller/ (compose files, container options) and reconcilers/.
import { createHmac } from 'node:crypto';
import type { UpdateOrder } from '../store/repositories/services.js';
import type { ComposeDecision } from '../deploy/compose/compose-path-rules.js';
import type { RestartPolicy } from './restart-policy.js';

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
  /** The service's restart policy as `docker run --restart` takes it (restart-policy.ts). */
  restart: RestartPolicy | null;
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
  /**
   * A container started outside Stevedore that the deployment adopted as it runs (its full id):
   * it has no ownership labels, and it is the deployment's while it has this id and none
   * (reconcilers/deployment/plan.ts). Not part of the spec hash.
   */
  adoptedContainerId: string | null;
  specHash: string;
}

export const LABEL = {
  managed: 'stevedore.managed',
  environment: 'stevedore.environment-id',
  service: 'stevedore.service-id',
  deployment: 'stevedore.deployment-id',
  specHash: 'stevedore.spec-hash',
  imageTag: 'stevedore.image-tag',
  /** A one-off run's container (docs/exec.md#one-off-runs): never a deployment's, it carries no deployment-id. */
  run: 'stevedore.run',
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

/** A keyed hash (HMAC-SHA256): env values and file contents may be secrets, so hashes of them are keyed. */
export const keyedHash = (key: Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest('hex');
export const fileContentHash = keyedHash;
