import type { Knex } from 'knex';
import type { SecretBox } from '../crypto/secret-box.js';
import { NOTIFICATIONS_MODULE, SETTINGS_MODULES } from '../settings/environment-settings.js';
import { normaliseDeployments, secretDigest } from './desired.js';
import type { ManifestSource, ObjectState } from './state.js';

/** The store's objects, by table, with their ids: what diff compares and apply writes to. */
export interface Snapshot {
  objects: ObjectState[];
  envIds: Map<string, string>;
  /** `${env}/${kind}/${name}` -> id, for resolving references while applying. */
  ids: Map<string, string>;
}

const manifestSource = (s: unknown): ManifestSource | undefined =>
  s && typeof s === 'object' && (s as { kind?: string }).kind === 'manifest' ? (s as ManifestSource) : undefined;

/** Runs queries one after another: a transaction is one connection, which runs one query at a time. */
async function sequential(queries: Array<() => PromiseLike<any>>): Promise<any[]> {
  const out: any[] = [];
  for (const q of queries) out.push(await q());
  return out;
}

/** Reads every object the manifests can manage, in one consistent transaction when given. */
export async function readSnapshot(db: Knex | Knex.Transaction, box: SecretBox): Promise<Snapshot> {
  const [envs, settings, servers, registries, images, services, deployments, deps, vars, secrets, fragments, files, attachments, subscriptions] = await sequential([
    () => db('environments').select('*'), () => db('environment_settings').select('*'), () => db('servers').select('*'),
    () => db('registry_connections').select('*'), () => db('container_images').select('*'), () => db('services').select('*'),
    () => db('deployments').select('id', 'serviceId', 'serverId', 'containerName', 'composePath', 'source'),
    () => db('service_dependencies').select('serviceId', 'dependsOnServiceId'),
    () => db('vars').select('*'), () => db('secrets').select('*'), () => db('config_fragments').select('*'),
    () => db('config_files').select('id', 'environmentId', 'name', 'kind', 'content', 'description', 'source'),
    () => db('config_attachments').select('configFileId', 'serviceId', 'targetPath'),
    () => db('webhook_subscriptions').select('id', 'environmentId', 'name', 'url', 'secretEnc', 'headers', 'enabled', 'eventTypes', 'source'),
  ]);
  const envName = new Map<string, string>(envs.map((e: any) => [e.id, e.name]));
  const objects: ObjectState[] = [];
  const ids = new Map<string, string>();
  const push = (kind: string, row: any, name: string, fields: Record<string, unknown>) => {
    const environment = kind === 'Environment' ? undefined : envName.get(row.environmentId);
    objects.push({ kind, environment, name, fields, id: row.id, environmentId: row.environmentId ?? row.id, source: manifestSource(row.source) });
    ids.set(`${environment ?? '-'}/${kind}/${name}`, row.id);
  };
  const open = (enc: string | null) => (enc ? secretDigest(box.open(enc)) : null);

  for (const e of envs) {
    const fields: Record<string, unknown> = { description: e.description, sshPrivateKey: open(e.sshPrivateKeySealed) };
    for (const [module, def] of [...Object.entries(SETTINGS_MODULES), ['notifications', NOTIFICATIONS_MODULE] as const]) {
      const row = settings.find((s: any) => s.environmentId === e.id && s.module === module);
      for (const [k, v] of Object.entries({ ...def.defaults, ...(row?.values ?? {}) })) fields[`settings.${module}.${k}`] = v;
    }
    push('Environment', e, e.name, fields);
  }
  for (const r of servers) {
    push('Server', r, r.name, { hostname: r.hostname, sshPort: r.sshPort, sshUser: r.sshUser, dockerMode: r.dockerMode, metricsMode: r.metricsMode, tags: r.tags });
  }
  const registryName = new Map<string, string>(registries.map((r: any) => [r.id, r.name]));
  for (const r of registries) {
    push('Registry', r, r.name, {
      type: r.type, registryUrl: r.registryUrl, repositoryPrefix: r.repositoryPrefix, username: r.username, isDefault: r.isDefault,
      refreshIntervalMinutes: r.refreshIntervalMinutes, autoLinkPattern: r.autoLinkPattern, token: open(r.tokenEnc), password: open(r.passwordEnc),
    });
  }
  const imageName = new Map<string, string>(images.map((i: any) => [i.id, i.imageName]));
  for (const i of images) {
    push('ContainerImage', i, i.imageName, { imageName: i.imageName, registry: registryName.get(i.registryConnectionId) ?? null, autoUpdate: i.autoUpdate });
    // References by the manifest's name resolve too.
    const src = manifestSource(i.source);
    if (src?.name) ids.set(`${envName.get(i.environmentId)}/ContainerImage/${src.name}`, i.id);
  }
  for (const v of vars) push('Var', v, v.key, { value: v.value, description: v.description });
  for (const x of secrets) push('Secret', x, x.key, { value: open(x.valueSealed), description: x.description });
  for (const f of fragments) push('ConfigFragment', f, f.name, { content: f.content, description: f.description });
  for (const f of files) push('ConfigFile', f, f.name, { content: f.content, description: f.description });
  for (const w of subscriptions) {
    push('WebhookSubscription', w, w.name, { url: w.url, secret: open(w.secretEnc), headers: w.headers, enabled: w.enabled, eventTypes: w.eventTypes });
  }
  const fileName = new Map<string, string>(files.map((f: any) => [f.id, f.name]));
  const serviceName = new Map<string, string>(services.map((s: any) => [s.id, s.name]));
  const serverName = new Map<string, string>(servers.map((s: any) => [s.id, s.name]));
  for (const s of services) {
    const mine = deployments.filter((d: any) => d.serviceId === s.id);
    push('Service', s, s.name, {
      image: imageName.get(s.containerImageId) ?? null, imageTag: s.imageTag, type: s.type, env: s.env, ports: s.ports, volumes: s.volumes,
      command: s.command, healthCheck: s.healthCheck, composeTemplate: s.composeTemplate,
      deployments: normaliseDeployments(s.name, mine.map((d: any) => ({ server: serverName.get(d.serverId)!, containerName: d.containerName, composePath: d.composePath }))),
      dependsOn: deps.filter((d: any) => d.serviceId === s.id).map((d: any) => serviceName.get(d.dependsOnServiceId)).sort(),
      configFiles: attachments.filter((a: any) => a.serviceId === s.id).map((a: any) => ({ name: fileName.get(a.configFileId), targetPath: a.targetPath }))
        .sort((a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    });
  }
  return { objects, envIds: new Map(envs.map((e: any) => [e.name, e.id])), ids };
}

/** keyOf()-style keys of what exists, so references to API-created objects resolve. */
export const existingKeys = (snap: Snapshot) => new Set([...snap.ids.keys()].map((k) => {
  const [env, kind, ...name] = k.split('/');
  return `${kind}/${env}/${name.join('/')}`;
}));
