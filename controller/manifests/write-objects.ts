import type { Trx } from '../store/transaction.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { KINDS, kindOf, STORED_KINDS } from '../kinds/index.js';
import { isVersioned, nameColumnOf, type KindDescriptor } from '../kinds/kind.js';
import { SETTINGS_MODULES } from '../settings/environment-settings.js';
import {
  addManifestRevision, deleteDeployments, deleteRowUnlessUsed, deleteSubscriptionDeliveries, deploymentsOfService, insertDefaultSettings,
  insertDeployment, insertRow, mergeSettings, replaceAttachments, replaceClusterMembers, replaceDependencies, settingsOf, updateDeployment, updateRow,
  type RowInUse,
} from '../store/repositories/manifest-rows.js';
import type { Snapshot } from './snapshot.js';
import { sealHeaders } from '../delivery/sealed-headers.js';
import type { ManifestSource, ObjectState } from './state.js';

/** Kinds this controller applies (the others are validated only). */
export const SUPPORTED_KINDS = STORED_KINDS;

export interface WriteContext {
  trx: Trx;
  box: SecretBox;
  snap: Snapshot;
  /** Deployment rows deleted by this apply: their containers are removed after commit. */
  removedDeployments: Array<Record<string, any>>;
}

const idOf = (w: WriteContext, env: string | undefined, kind: string, name: string) => {
  const id = w.snap.ids.get(`${env ?? '-'}/${kind}/${name}`);
  if (!id) throw new Error(`${kind} '${name}' of environment '${env}' does not exist`);
  return id;
};

/** Fields written to other tables than the kind's own (a service's deployments, an environment's settings). */
const isRelation = (k: KindDescriptor, field: string) =>
  (k.manifest.relations ?? []).some((r) => (r.endsWith('.') ? field.startsWith(r) : field === r));

/** Row columns for the given fields of one object, as its descriptor maps them: references to ids, secrets sealed. */
function columns(w: WriteContext, o: ObjectState, fields: string[]): Record<string, unknown> {
  const k = kindOf(o.kind);
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (isRelation(k, f)) continue;
    const v = o.fields[f];
    const written = k.manifest.write?.(f, v, (kind, name) => idOf(w, o.environment, kind, name));
    if (written) {
      Object.assign(out, written);
      continue;
    }
    if (k.sealedMaps?.includes(f)) {
      out[f] = JSON.stringify(sealHeaders(w.box, o.sealedMapValues?.[f] ?? {}));
      continue;
    }
    const ref = k.references?.find((r) => r.column && r.path === f);
    const secret = k.secrets?.find((s) => s.field === f);
    if (ref) out[ref.column!] = v == null ? null : idOf(w, o.environment, ref.kind, v as string);
    else if (secret) {
      const value = o.secretValues![f];
      Object.assign(out, { [secret.column]: w.box.seal(value) }, secret.derived?.(value));
    // a null stays SQL NULL, never the jsonb `null` (which `whereNotNull` would take for a value)
    } else out[f] = k.jsonColumns?.includes(f) && v !== null ? JSON.stringify(v) : v;
  }
  return out;
}

/** Columns a manifest left out that the environment's settings fill in (a server's sshUser). */
async function environmentDefaults(w: WriteContext, k: KindDescriptor, environmentId: string) {
  const wanted = Object.entries(k.manifest.environmentDefaults ?? {});
  if (!wanted.length) return {};
  const stored = await settingsOf(w.trx, environmentId, [...new Set(wanted.map(([, [module]]) => module))]);
  return Object.fromEntries(wanted.map(([column, [module, field]]) =>
    [column, stored[module]?.[field] ?? SETTINGS_MODULES[module].defaults[field]]));
}

/** Inserts one desired object; returns its id. */
export async function createObject(w: WriteContext, o: ObjectState): Promise<string> {
  const k = kindOf(o.kind);
  const fields = Object.keys(o.fields);
  const row: Record<string, unknown> = { source: JSON.stringify(o.source) };
  if (k.namespaced) {
    row.environmentId = w.snap.envIds.get(o.environment!)!;
    Object.assign(row, await environmentDefaults(w, k, row.environmentId as string));
  }
  Object.assign(row, columns(w, o, fields));
  const nameColumn = nameColumnOf(k);
  if (nameColumn) row[nameColumn] = o.name;
  const id = await insertRow(w.trx, k.table!, row);
  w.snap.ids.set(`${o.environment ?? '-'}/${o.kind}/${o.name}`, id);
  if (o.source?.name) w.snap.ids.set(`${o.environment}/${o.kind}/${o.source.name}`, id);
  if (o.kind === 'Environment') {
    w.snap.envIds.set(o.name, id);
    await insertDefaultSettings(w.trx, id);
    await writeSettings(w, id, o, fields);
  }
  if (o.kind === 'ConfigFile') await addManifestRevision(w.trx, id, o.fields.content);
  // a service placed by selector gets its deployments from reconcilers/service/placement.ts after commit
  if (o.kind === 'Service' && !o.fields.serverSelector) await syncDeployments(w, id, o);
  if (o.kind === 'Service' && o.fields.configFiles) await syncAttachments(w, id, o);
  if (o.kind === 'ServerCluster') await syncClusterMembers(w, id, o);
  return id;
}

/** Writes the changed fields (and the new source) of an existing object. */
export async function updateObject(w: WriteContext, o: ObjectState, id: string, changed: string[]): Promise<void> {
  const k = kindOf(o.kind);
  const contentChanged = o.kind === 'ConfigFile' && changed.includes('content');
  await updateRow(w.trx, k.table!, id, { ...columns(w, o, changed), source: JSON.stringify(o.source) }, [
    ...(changed.length && isVersioned(k) ? ['generation'] : []),
    ...(contentChanged ? ['revision'] : []),
  ]);
  if (contentChanged) await addManifestRevision(w.trx, id, o.fields.content);
  if (o.kind === 'Service' && changed.includes('configFiles')) await syncAttachments(w, id, o);
  if (o.kind === 'Environment') await writeSettings(w, id, o, changed);
  if (o.kind === 'Service' && changed.includes('deployments')) await syncDeployments(w, id, o);
  if (o.kind === 'ServerCluster' && changed.includes('servers')) await syncClusterMembers(w, id, o);
}

/** A cluster's members are rows of server_cluster_members, named by server in the manifest. */
async function syncClusterMembers(w: WriteContext, clusterId: string, o: ObjectState) {
  await replaceClusterMembers(w.trx, clusterId, (o.fields.servers as string[]).map((n) => idOf(w, o.environment, 'Server', n)));
}

/** A pruned object another object still uses: nothing of the apply is written (the transaction rolls back). */
export class ObjectInUse extends Error {
  /** The file the object came from, and the revision being applied: set by the apply that pruned it. */
  at: { path: string; revision: { contentHash: string; gitCommit: string | null } } | null = null;

  constructor(kind: string, name: string, users: RowInUse[]) {
    const named = users.map((u) => {
      const k = KINDS.find((x) => x.table === u.table);
      const what = k ? k.kind : u.table === 'deployments' ? 'a deployment' : `a row of ${u.table}`;
      return u.name ? `${what} '${u.name}'` : what;
    });
    super(`cannot delete ${kind} '${name}' (no manifest declares it any more, and prune is on): ${[...new Set(named)].join(', ')} still `
      + `use${users.length === 1 ? 's' : ''} it; change or delete ${users.length === 1 ? 'that' : 'those'} first, or declare it again`);
    this.name = 'ObjectInUse';
  }
}

export async function deleteObject(w: WriteContext, kind: string, id: string, name: string): Promise<void> {
  if (kind === 'Service') w.removedDeployments.push(...await deploymentsOfService(w.trx, id));
  if (kind === 'WebhookSubscription') await deleteSubscriptionDeliveries(w.trx, id);
  const users = await deleteRowUnlessUsed(w.trx, kindOf(kind).table!, id);
  if (users.length) throw new ObjectInUse(kind, name, users);
}

async function writeSettings(w: WriteContext, envId: string, o: ObjectState, fields: string[]) {
  const byModule = new Map<string, Record<string, unknown>>();
  for (const f of fields.filter((x) => x.startsWith('settings.'))) {
    const [, module, key] = f.split('.');
    byModule.set(module, { ...(byModule.get(module) ?? {}), [key]: o.fields[f] });
  }
  for (const [module, values] of byModule) await mergeSettings(w.trx, envId, module, values);
}

/** Makes a service's deployments match the manifest's list. */
async function syncDeployments(w: WriteContext, serviceId: string, o: ObjectState) {
  const envId = w.snap.envIds.get(o.environment!)!;
  const want = o.fields.deployments as Array<{ server: string; containerName: string; composePath: string | null; adoptContainerId?: string }>;
  const have = await deploymentsOfService(w.trx, serviceId);
  const source: ManifestSource = { ...o.source!, fields: ['serverId', 'containerName', 'composePath'] };
  const keep = new Set<string>();
  for (const d of want) {
    const serverId = idOf(w, o.environment, 'Server', d.server);
    const row = have.find((h) => h.serverId === serverId && h.containerName === d.containerName);
    const adoptedContainerId = d.adoptContainerId ?? null;
    if (row) {
      keep.add(row.id);
      if (row.composePath !== d.composePath || (row.adoptedContainerId ?? null) !== adoptedContainerId) {
        await updateDeployment(w.trx, row.id, { composePath: d.composePath, adoptedContainerId, source: JSON.stringify(source) });
      }
    } else {
      await insertDeployment(w.trx, {
        serviceId, environmentId: envId, serverId, containerName: d.containerName, composePath: d.composePath, adoptedContainerId, source: JSON.stringify(source),
      });
    }
  }
  const gone = have.filter((h) => !keep.has(h.id));
  w.removedDeployments.push(...gone);
  await deleteDeployments(w.trx, gone.map((h) => h.id));
}

/**
 * Replaces a service's dependencies. Runs after every service of the apply exists, since a
 * service may depend on one created later in the same apply.
 */
export async function syncDependencies(w: WriteContext, o: ObjectState): Promise<void> {
  const serviceId = idOf(w, o.environment, 'Service', o.name);
  await replaceDependencies(w.trx, serviceId, (o.fields.dependsOn as string[]).map((n) => idOf(w, o.environment, 'Service', n)));
}

/** Makes a service's config file attachments match the manifest's list. */
async function syncAttachments(w: WriteContext, serviceId: string, o: ObjectState) {
  const envId = w.snap.envIds.get(o.environment!)!;
  await replaceAttachments(w.trx, serviceId, (o.fields.configFiles as Array<{ name: string; targetPath: string }>).map((c) => ({
    serviceId, environmentId: envId, configFileId: idOf(w, o.environment, 'ConfigFile', c.name), targetPath: c.targetPath,
  })));
}
