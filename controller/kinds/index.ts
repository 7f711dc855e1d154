/**
 * Every kind, in apply order: what others refer to comes first (deletions run in reverse).
 * Adding a kind: its descriptor file, one line here (see docs/kinds.md).
 */
import { configFile } from './config-file.js';
import { configFragment } from './config-fragment.js';
import { connection } from './connection.js';
import { containerImage } from './container-image.js';
import { database } from './database.js';
import { environment } from './environment.js';
import { externalEntity } from './external-entity.js';
import { job } from './job.js';
import type { FoundReference, KindDescriptor } from './kind.js';
import { registry } from './registry.js';
import { secret } from './secret.js';
import { serverCluster } from './server-cluster.js';
import { server } from './server.js';
import { service } from './service.js';
import { variable } from './var.js';
import { volume } from './volume.js';
import { webhookSubscription } from './webhook-subscription.js';

export type { KindDescriptor } from './kind.js';

export const KINDS: KindDescriptor[] = [
  environment, registry, server, serverCluster, containerImage, variable, secret, configFragment,
  configFile, volume, service, job, database, externalEntity, connection, webhookSubscription,
];

export const KIND_NAMES = KINDS.map((k) => k.kind);

const byName = new Map(KINDS.map((k) => [k.kind, k]));

/** The descriptor of a kind; throws for an unknown name (callers validated it before). */
export function kindOf(name: string): KindDescriptor {
  const k = byName.get(name);
  if (!k) throw new Error(`unknown kind '${name}'`);
  return k;
}

/** Kinds a manifest can apply: those with a table. */
export const STORED_KINDS = KINDS.filter((k) => k.table).map((k) => k.kind);

/** Every value at a reference path ('deployments.*.server') of a spec, with its document path. */
function valuesAt(value: unknown, segments: string[], at: string[]): Array<{ value: unknown; path: string[] }> {
  if (!segments.length) return [{ value, path: at }];
  if (value === null || typeof value !== 'object') return [];
  const [head, ...rest] = segments;
  if (head === '*') {
    return Array.isArray(value) ? value.flatMap((v, i) => valuesAt(v, rest, [...at, String(i)])) : [];
  }
  return valuesAt((value as Record<string, unknown>)[head], rest, [...at, head]);
}

/** Every by-name reference a manifest's spec makes to another object of its environment. */
export function referencesOf(kind: KindDescriptor, spec: Record<string, unknown>): FoundReference[] {
  const refs: FoundReference[] = [];
  for (const r of kind.references ?? []) {
    for (const { value, path } of valuesAt(spec, r.path.split('.'), ['spec'])) {
      if (typeof value === 'string') refs.push({ kind: r.kind, name: value, path });
    }
  }
  return [...refs, ...(kind.manifest.referencesIn?.(spec as Record<string, any>) ?? [])];
}
