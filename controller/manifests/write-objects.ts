import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.js';
import { defaultSettingsRows } from '../settings/environment-settings.js';
import { parsePrivateKey } from '../servers/ssh-key.js';
import type { Snapshot } from './snapshot.js';
import type { ManifestSource, ObjectState } from './state.js';

const JSON_COLUMNS = new Set(['tags', 'env', 'ports', 'volumes', 'command', 'healthCheck', 'headers', 'eventTypes']);
const TABLES: Record<string, string> = {
  Environment: 'environments', Server: 'servers', Registry: 'registry_connections', ContainerImage: 'container_images', Service: 'services',
  Var: 'vars', Secret: 'secrets', ConfigFragment: 'config_fragments', ConfigFile: 'config_files',
  WebhookSubscription: 'webhook_subscriptions',
};
/** Tables without a generation column. */
const UNVERSIONED = new Set(['Var', 'Secret', 'WebhookSubscription']);
/** The column holding an object's name, when it is not `name`. */
const NAME_COLUMN: Record<string, string | null> = { ContainerImage: null, Var: 'key', Secret: 'key' };
export const SUPPORTED_KINDS = Object.keys(TABLES);

export interface WriteContext {
  trx: Knex.Transaction;
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

/** Row columns for the given API fields of one kind (references resolved to ids, secrets sealed). */
function columns(w: WriteContext, o: ObjectState, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = o.fields[f];
    if (f === 'registry') out.registryConnectionId = v == null ? null : idOf(w, o.environment, 'Registry', v as string);
    else if (f === 'image') out.containerImageId = idOf(w, o.environment, 'ContainerImage', v as string);
    else if (f === 'token' || f === 'password') out[`${f}Enc`] = w.box.seal(o.secretValues![f]);
    else if (o.kind === 'Secret' && f === 'value') out.valueSealed = w.box.seal(o.secretValues!.value);
    else if (o.kind === 'WebhookSubscription' && f === 'secret') out.secretEnc = w.box.seal(o.secretValues!.secret);
    else if (f === 'sshPrivateKey') Object.assign(out, sshKeyColumns(w, o.secretValues!.sshPrivateKey));
    else if (f === 'deployments' || f === 'dependsOn' || f === 'configFiles' || f.startsWith('settings.')) continue;
    else out[f] = JSON_COLUMNS.has(f) ? JSON.stringify(v) : v;
  }
  return out;
}

/** As PUT /api/environments/{envId}/ssh-key stores a key: sealed, with its public half and fingerprint. */
function sshKeyColumns(w: WriteContext, privateKey: string) {
  const key = parsePrivateKey(privateKey);
  return { sshPrivateKeySealed: w.box.seal(privateKey), sshPublicKey: key.publicKey, sshKeyFingerprint: key.fingerprint, sshKeyUpdatedAt: w.trx.fn.now() };
}

async function environmentDefaults(w: WriteContext, envId: string) {
  const rows = await w.trx('environment_settings').where({ environmentId: envId }).whereIn('module', ['general', 'operations']);
  const of = (m: string) => rows.find((r: any) => r.module === m)?.values ?? {};
  return { sshUser: of('general').sshUser ?? 'root', dockerMode: of('operations').defaultDockerMode ?? 'ssh', metricsMode: of('operations').defaultMetricsMode ?? 'disabled' };
}

/** Inserts one desired object; returns its id. */
export async function createObject(w: WriteContext, o: ObjectState): Promise<string> {
  const source = JSON.stringify(o.source);
  const fields = Object.keys(o.fields);
  if (o.kind === 'Environment') {
    const [row] = await w.trx('environments').insert({ name: o.name, source, ...columns(w, o, fields) }).returning('id');
    await w.trx('environment_settings').insert(defaultSettingsRows(row.id));
    await writeSettings(w, row.id, o, fields);
    w.snap.envIds.set(o.name, row.id);
    w.snap.ids.set(`-/Environment/${o.name}`, row.id);
    return row.id;
  }
  const environmentId = w.snap.envIds.get(o.environment!)!;
  const base: Record<string, unknown> = { environmentId, source, ...columns(w, o, fields) };
  if (o.kind === 'Server') Object.assign(base, { ...(await environmentDefaults(w, environmentId)), ...base, name: o.name });
  const nameColumn = o.kind in NAME_COLUMN ? NAME_COLUMN[o.kind] : 'name';
  if (nameColumn) base[nameColumn] = o.name;
  const [row] = await w.trx(TABLES[o.kind]).insert(base).returning('id');
  if (o.kind === 'ConfigFile') await w.trx('config_file_revisions').insert({ configFileId: row.id, revision: 1, content: o.fields.content, actorName: 'manifest', reason: 'manifest' });
  w.snap.ids.set(`${o.environment}/${o.kind}/${o.name}`, row.id);
  if (o.source?.name) w.snap.ids.set(`${o.environment}/${o.kind}/${o.source.name}`, row.id);
  if (o.kind === 'Service') await syncDeployments(w, row.id, o);
  if (o.kind === 'Service' && o.fields.configFiles) await syncAttachments(w, row.id, o);
  return row.id;
}

/** Writes the changed fields (and the new source) of an existing object. */
export async function updateObject(w: WriteContext, o: ObjectState, id: string, changed: string[]): Promise<void> {
  const cols = columns(w, o, changed);
  const versioned = !UNVERSIONED.has(o.kind);
  await w.trx(TABLES[o.kind]).where({ id }).update({
    ...cols, source: JSON.stringify(o.source), updatedAt: w.trx.fn.now(),
    ...(changed.length && versioned && { generation: w.trx.raw('generation + 1') }),
    ...(o.kind === 'ConfigFile' && changed.includes('content') && { revision: w.trx.raw('revision + 1') }),
  });
  if (o.kind === 'ConfigFile' && changed.includes('content')) {
    const { revision } = await w.trx('config_files').where({ id }).first('revision');
    await w.trx('config_file_revisions').insert({ configFileId: id, revision, content: o.fields.content, actorName: 'manifest', reason: 'manifest' });
  }
  if (o.kind === 'Service' && changed.includes('configFiles')) await syncAttachments(w, id, o);
  if (o.kind === 'Environment') await writeSettings(w, id, o, changed);
  if (o.kind === 'Service' && changed.includes('deployments')) await syncDeployments(w, id, o);
}

export async function deleteObject(w: WriteContext, kind: string, id: string): Promise<void> {
  if (kind === 'Service') w.removedDeployments.push(...await w.trx('deployments').where({ serviceId: id }));
  // As DELETE /api/webhook-subscriptions/{id}: its delivery history goes with it.
  if (kind === 'WebhookSubscription') await w.trx('delivery_outbox').where({ kind: 'subscription', targetId: id }).delete();
  await w.trx(TABLES[kind]).where({ id }).delete();
}

async function writeSettings(w: WriteContext, envId: string, o: ObjectState, fields: string[]) {
  const byModule = new Map<string, Record<string, unknown>>();
  for (const f of fields.filter((x) => x.startsWith('settings.'))) {
    const [, module, key] = f.split('.');
    byModule.set(module, { ...(byModule.get(module) ?? {}), [key]: o.fields[f] });
  }
  for (const [module, values] of byModule) {
    const row = await w.trx('environment_settings').where({ environmentId: envId, module }).first('values');
    await w.trx('environment_settings').insert({ environmentId: envId, module, values: JSON.stringify({ ...(row?.values ?? {}), ...values }), updatedAt: w.trx.fn.now() })
      .onConflict(['environmentId', 'module']).merge();
  }
}

/** Makes a service's deployments match the manifest's list. */
async function syncDeployments(w: WriteContext, serviceId: string, o: ObjectState) {
  const envId = w.snap.envIds.get(o.environment!)!;
  {
    const want = o.fields.deployments as Array<{ server: string; containerName: string; composePath: string | null }>;
    const have = await w.trx('deployments').where({ serviceId });
    const source: ManifestSource = { ...o.source!, fields: ['serverId', 'containerName', 'composePath'] };
    const keep = new Set<string>();
    for (const d of want) {
      const serverId = idOf(w, o.environment, 'Server', d.server);
      const row = have.find((h: any) => h.serverId === serverId && h.containerName === d.containerName);
      if (row) {
        keep.add(row.id);
        if (row.composePath !== d.composePath) await w.trx('deployments').where({ id: row.id }).update({ composePath: d.composePath, source: JSON.stringify(source) });
      } else {
        await w.trx('deployments').insert({ serviceId, environmentId: envId, serverId, containerName: d.containerName, composePath: d.composePath, source: JSON.stringify(source) });
      }
    }
    const gone = have.filter((h: any) => !keep.has(h.id));
    w.removedDeployments.push(...gone);
    if (gone.length) await w.trx('deployments').whereIn('id', gone.map((h: any) => h.id)).delete();
  }
}

/**
 * Replaces a service's dependencies. Runs after every service of the apply exists, since a
 * service may depend on one created later in the same apply.
 */
export async function syncDependencies(w: WriteContext, o: ObjectState): Promise<void> {
  const serviceId = idOf(w, o.environment, 'Service', o.name);
  {
    await w.trx('service_dependencies').where({ serviceId }).delete();
    const rows = (o.fields.dependsOn as string[]).map((n) => ({ serviceId, dependsOnServiceId: idOf(w, o.environment, 'Service', n) }));
    if (rows.length) await w.trx('service_dependencies').insert(rows);
  }
}

/** Makes a service's config file attachments match the manifest's list. */
async function syncAttachments(w: WriteContext, serviceId: string, o: ObjectState) {
  const envId = w.snap.envIds.get(o.environment!)!;
  await w.trx('config_attachments').where({ serviceId }).delete();
  const rows = (o.fields.configFiles as Array<{ name: string; targetPath: string }>).map((c) => ({
    serviceId, environmentId: envId, configFileId: idOf(w, o.environment, 'ConfigFile', c.name), targetPath: c.targetPath,
  }));
  if (rows.length) await w.trx('config_attachments').insert(rows);
}
