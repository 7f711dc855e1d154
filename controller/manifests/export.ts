// Adoption: an environment, or the containers found on one of its servers that no service owns
// yet, written as manifests ready to commit (GET /api/environments/{envId}/manifests/export,
// `stevedore export`). Secret values are never written: a secret becomes a SOPS placeholder, a
// document the team fills in and encrypts. A server's containers become Service manifests whose
// deployments adopt them by container id (deployments[].adoptContainerId), so applying the export
// changes no running container (reconcilers/deployment/plan.ts isAdopted). docs/git-sources.md.
import type Docker from 'dockerode';
import { stringify } from 'yaml';
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';
import { KINDS, kindOf } from '../kinds/index.js';
import { LABEL, normalizePort, portSyntax } from '../model/desired-container.js';
import { DEFAULT_RESTART_POLICY, RESTART_POLICY_PATTERN, restartPolicyOf } from '../model/restart-policy.js';
import { readSnapshot } from './snapshot.js';

export const API_VERSION = 'stevedore/v1';
/** What a secret value is written as: left in, the document is refused (a plain value is only read from a SOPS file). */
export const SOPS_PLACEHOLDER = '<set the value, then encrypt this file with sops>';
/** Env keys whose values are taken for secrets: exported as Secret placeholders, never as values. */
export const SECRET_KEY = /PASS|SECRET|TOKEN|KEY|CREDENTIAL|PRIVATE|AUTH|CERT|DSN|SALT/i;
/** Values that carry credentials whatever their key (a URL with a password). */
const SECRET_VALUE = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;

interface Doc {
  comments: string[];
  body: { apiVersion: string; kind: string; metadata: { name: string; environment?: string }; spec: Record<string, unknown> };
}

/** One YAML stream; `${env:` is escaped so the manifest loader keeps the text as it is. */
export function toYamlStream(header: string[], docs: Doc[]): string {
  const parts = docs.map((d) => `${d.comments.map((c) => `# ${c}\n`).join('')}${stringify(d.body, { lineWidth: 0 })}`);
  const text = `${header.map((c) => `# ${c}\n`).join('')}${parts.length ? parts.join('---\n') : '# nothing to export\n'}`;
  return text.replace(/\$\{env:/g, () => '$${env:');
}

const isEmpty = (v: unknown) => v === null || v === undefined || (Array.isArray(v) && !v.length)
  || (typeof v === 'object' && !Array.isArray(v) && !Object.keys(v as object).length);

/** A manifest name from any text (a container name, an image path). */
export function manifestName(text: string): string {
  const n = text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 100);
  return n.length >= 2 ? n : `x-${n || 'unnamed'}`;
}

/** `base`, or `base-2`, `base-3`, … when taken. */
export function unique(base: string, taken: Set<string>): string {
  let n = base;
  for (let i = 2; taken.has(n); i++) n = `${base}-${i}`;
  return n;
}

/** A secret key from any text. */
export const secretKey = (text: string) => text.toUpperCase().replace(/[^A-Z0-9_]+/g, '_').replace(/^([0-9])/, '_$1').slice(0, 200);

const secretPlaceholder = (environment: string, key: string): Doc => ({
  comments: [
    `Secret ${key}: its value is not exported. Save this document as ${key}.sops.yaml, write the value in`,
    `spec.value and encrypt it: sops --encrypt --age <the environment's recipient> --encrypted-regex '^spec$' -i ${key}.sops.yaml`,
    '(left as it is, this document is refused: a plain value is read only from a SOPS file)',
  ],
  body: { apiVersion: API_VERSION, kind: 'Secret', metadata: { name: key, environment }, spec: { value: SOPS_PLACEHOLDER } },
});

/** The environment's objects as manifests (the Environment itself is where the export is applied, so it is left out). */
export async function exportEnvironment(s: Pick<Services, 'db' | 'secretBox'>, env: { id: string; name: string }): Promise<string> {
  const snap = await readSnapshot(s.db, s.secretBox);
  const order = new Map(KINDS.map((k, i) => [k.kind, i]));
  const objects = snap.objects.filter((o) => o.environment === env.name && o.kind !== 'Environment')
    .sort((a, b) => order.get(a.kind)! - order.get(b.kind)! || a.name.localeCompare(b.name));
  const docs: Doc[] = [];
  // an image is stored by its imageName, and a service names it so: both by the exported name
  const imageNames = new Map<string, string>();
  for (const o of objects.filter((x) => x.kind === 'ContainerImage')) imageNames.set(o.name, unique(manifestName(o.source?.name ?? o.name.split('/').at(-1)!), new Set(imageNames.values())));
  for (const o of objects) {
    const k = kindOf(o.kind);
    const name = o.kind === 'ContainerImage' ? imageNames.get(o.name)! : o.source?.name ?? o.name;
    if (o.kind === 'Secret') {
      docs.push(secretPlaceholder(env.name, name));
      continue;
    }
    const spec: Record<string, unknown> = {};
    const secretFields = new Set((k.secrets ?? []).map((x) => x.field));
    const comments: string[] = [];
    for (const [field, value] of Object.entries(o.fields)) {
      if (secretFields.has(field)) {
        if (value === null) continue;
        spec[field] = SOPS_PLACEHOLDER;
        comments.push(`${field} is a secret: its value is not exported. Write it here and encrypt this file with sops (save it as ${name}.sops.yaml)`);
      } else if ((k.sealedMaps ?? []).includes(field)) {
        if (!isEmpty(value)) comments.push(`${field} holds sealed values: not exported; set them again`);
      } else if (!isEmpty(value)) spec[field] = value;
    }
    if (o.kind === 'Service' && typeof spec.image === 'string') spec.image = imageNames.get(spec.image) ?? spec.image;
    docs.push({ comments, body: { apiVersion: API_VERSION, kind: o.kind, metadata: { name: manifestName(name), ...(k.namespaced && { environment: env.name }) }, spec } });
  }
  return toYamlStream([`Environment ${env.name}, exported ${new Date().toISOString()}: ${docs.length} object(s). Secret values are never exported.`], docs);
}

/** "registry:5000/a/b:1.2" -> name and tag; null tag when there is none (or a digest). */
export function splitImage(ref: string): { name: string; tag: string | null; digest: boolean } {
  const at = ref.indexOf('@');
  if (at >= 0) return { name: ref.slice(0, at), tag: null, digest: true };
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  return colon > slash ? { name: ref.slice(0, colon), tag: ref.slice(colon + 1), digest: false } : { name: ref, tag: null, digest: false };
}

const envMap = (list: string[] | null | undefined) => {
  const out: Record<string, string> = {};
  for (const e of list ?? []) {
    const i = e.indexOf('=');
    if (i > 0) out[e.slice(0, i)] = e.slice(i + 1);
  }
  return out;
};

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const ANONYMOUS = /^[0-9a-f]{64}$/;
const seconds = (ns: number | undefined, dflt: number) => (ns ? Math.max(1, Math.round(ns / 1e9)) : dflt);

export interface ContainerExport {
  service: Doc;
  secrets: Doc[];
  image: { name: string; imageName: string };
}

/**
 * One container and its image's defaults (pure): the Service manifest adopting it, its secret
 * placeholders, and the ContainerImage it names. What Stevedore cannot express or keep is said in
 * the service's comments (the first rollout would then recreate it); env the image itself sets is
 * left out.
 */
export function containerToManifests(c: Docker.ContainerInspectInfo, image: Docker.ImageInspectInfo | null, o: {
  environment: string; serverName: string; imageNames: Map<string, string>;
}): ContainerExport {
  const containerName = c.Name.replace(/^\//, '');
  const name = manifestName(containerName);
  const warnings: string[] = [];
  const ref = splitImage(c.Config.Image ?? '');
  if (ref.digest) warnings.push(`it runs ${c.Config.Image} by digest: a service names a tag, so the first rollout recreates it`);
  else if (!ref.tag) warnings.push(`it runs ${c.Config.Image} without a tag: imageTag is "latest", so the first rollout recreates it (as ${ref.name}:latest)`);
  const tag = ref.digest || !ref.tag ? 'latest' : ref.tag;
  let imageManifest = o.imageNames.get(ref.name);
  if (!imageManifest) {
    imageManifest = unique(manifestName(ref.name.split('/').at(-1)!), new Set(o.imageNames.values()));
    o.imageNames.set(ref.name, imageManifest);
  }
  const defaults = envMap(image?.Config?.Env);
  const env: Record<string, string> = {};
  const secrets: Doc[] = [];
  for (const [key, value] of Object.entries(envMap(c.Config.Env)).sort(([a], [b]) => a.localeCompare(b))) {
    if (defaults[key] === value) continue;
    if (SECRET_KEY.test(key) || SECRET_VALUE.test(value)) {
      const sk = secretKey(`${name}_${key}`);
      env[key] = `\${${sk}}`;
      secrets.push(secretPlaceholder(o.environment, sk));
    } else {
      if (/\$\{[A-Z_][A-Z0-9_]*\}/.test(value)) warnings.push(`env ${key} holds \${…} text that Stevedore reads as a placeholder of a var or secret`);
      env[key] = value;
    }
  }
  const ports: string[] = [];
  for (const [key, bindings] of Object.entries(c.HostConfig.PortBindings ?? {}) as Array<[string, Array<{ HostIp?: string; HostPort?: string }> | null]>) {
    for (const b of bindings ?? []) ports.push(portSyntax(normalizePort(`${b.HostIp ?? ''}:${b.HostPort ?? ''}:${key}`.replace(/^:/, ''))));
  }
  const volumes: string[] = [];
  for (const m of c.Mounts ?? []) {
    const ro = m.RW === false ? ':ro' : '';
    if (m.Type === 'volume' && m.Name && !ANONYMOUS.test(m.Name)) volumes.push(`${m.Name}:${m.Destination}${ro}`);
    else if (m.Type === 'bind') volumes.push(`${m.Source}:${m.Destination}${ro}`);
    else if (m.Type === 'volume') warnings.push(`the anonymous volume at ${m.Destination} is not kept by a recreate: name it to keep its data`);
    else warnings.push(`the ${m.Type} mount at ${m.Destination} is not expressed`);
  }
  const spec: Record<string, unknown> = { image: imageManifest, imageTag: tag };
  if (Object.keys(env).length) spec.env = env;
  if (ports.length) spec.ports = [...new Set(ports)].sort();
  if (volumes.length) spec.volumes = [...new Set(volumes)].sort();
  if (c.Config.Cmd?.length && !sameJson(c.Config.Cmd, image?.Config?.Cmd)) spec.command = [...c.Config.Cmd];
  if (!sameJson(c.Config.Entrypoint, image?.Config?.Entrypoint)) warnings.push('its entrypoint was overridden: a service keeps the image\'s entrypoint, so a recreate changes it');
  const hc = (c.Config as { Healthcheck?: { Test?: string[]; Interval?: number; Timeout?: number; Retries?: number; StartPeriod?: number } }).Healthcheck;
  const imageHc = (image?.Config as { Healthcheck?: { Test?: string[] } } | undefined)?.Healthcheck;
  if (hc?.Test?.length && hc.Test[0] !== 'NONE' && !sameJson(hc.Test, imageHc?.Test)) {
    spec.healthCheck = { test: hc.Test, intervalSec: seconds(hc.Interval, 10), timeoutSec: seconds(hc.Timeout, 5), retries: hc.Retries ?? 3, startPeriodSec: hc.StartPeriod ? seconds(hc.StartPeriod, 0) : 0 };
  }
  const restart = restartPolicyOf(c.HostConfig.RestartPolicy);
  if (new RegExp(RESTART_POLICY_PATTERN).test(restart)) {
    if (restart !== DEFAULT_RESTART_POLICY) spec.restartPolicy = restart;
  } else {
    warnings.push(`its restart policy is "${restart}", which a service cannot hold (on-failure takes 1-9999 retries), so the first rollout recreates it unless-stopped`);
  }
  const networks = Object.keys(c.NetworkSettings?.Networks ?? {}).filter((n) => n !== 'bridge');
  if (networks.length) warnings.push(`it joined network(s) ${networks.join(', ')}: a recreate by Stevedore puts it on the default network`);
  const custom = Object.keys(c.Config.Labels ?? {}).filter((l) => !(l in (image?.Config?.Labels ?? {})) && !l.startsWith('com.docker.compose.'));
  if (custom.length) warnings.push(`its labels (${custom.join(', ')}) are not kept by a recreate`);
  spec.deployments = [{ server: o.serverName, containerName, adoptContainerId: c.Id }];
  return {
    service: {
      comments: [
        `Container ${containerName} (${c.Id.slice(0, 12)}), running ${c.Config.Image}: adopted as it runs by its id, recreated under Stevedore's labels by the next rollout.`,
        ...warnings.map((w) => `note: ${w}`),
      ],
      body: { apiVersion: API_VERSION, kind: 'Service', metadata: { name, environment: o.environment }, spec },
    },
    secrets,
    image: { name: imageManifest, imageName: ref.name },
  };
}

/** True when the container carries any of Stevedore's ownership labels (a service made it). */
const ownedByStevedore = (labels: Record<string, string> | undefined) => Object.values(LABEL).some((l) => l in (labels ?? {}));

/**
 * The running containers of a server that no service owns yet (no ownership label, no deployment
 * of that name on the machine, in any environment), with the Server, their images and secret placeholders.
 */
export async function exportServer(s: Pick<Services, 'hosts' | 'deploymentViews' | 'servers'>, env: { id: string; name: string }, server: ServerRow): Promise<string> {
  const docker = await s.hosts.docker(server.id);
  // a machine may be a server of several environments: a container any of them deploys (a
  // hand-written compose file's carries no label of ours) is owned, whichever environment asks
  const same = (await s.servers.listAll()).filter((x) => x.id === server.id || (x.hostname === server.hostname && x.sshPort === server.sshPort));
  const [running, ...deployments] = await Promise.all([docker.listContainers({ all: false }), ...same.map((x) => s.deploymentViews.onServer(x.id))]);
  const taken = new Set(deployments.flat().map((d) => d.containerName));
  const unowned = running.filter((c) => !ownedByStevedore(c.Labels) && !taken.has((c.Names?.[0] ?? '').replace(/^\//, '')))
    .sort((a, b) => (a.Names?.[0] ?? '').localeCompare(b.Names?.[0] ?? ''));
  const imageNames = new Map<string, string>();
  const out: ContainerExport[] = [];
  for (const listed of unowned) {
    const c = await docker.getContainer(listed.Id).inspect().catch(() => null);
    if (!c || !c.State.Running || ownedByStevedore(c.Config.Labels)) continue; // gone (or taken) since the list
    const image = await docker.getImage(c.Image).inspect().catch(() => null);
    out.push(containerToManifests(c, image, { environment: env.name, serverName: server.name, imageNames }));
  }
  const serverDoc: Doc = {
    comments: [`Server ${server.name}: the containers below run there`],
    body: {
      apiVersion: API_VERSION, kind: 'Server', metadata: { name: server.name, environment: env.name },
      spec: { hostname: server.hostname, sshPort: server.sshPort, sshUser: server.sshUser, dockerMode: server.dockerMode, ...(server.tags?.length && { tags: server.tags }) },
    },
  };
  const images = [...new Map(out.map((x) => [x.image.name, x.image])).values()].map((i): Doc => ({
    comments: [], body: { apiVersion: API_VERSION, kind: 'ContainerImage', metadata: { name: i.name, environment: env.name }, spec: { imageName: i.imageName } },
  }));
  return toYamlStream([
    `Server ${server.name} of environment ${env.name}, exported ${new Date().toISOString()}: ${out.length} container(s) no service owns.`,
    'Each Service adopts its running container by id: applied as it is, it changes no running container. Secret values are never exported.',
  ], [serverDoc, ...images, ...out.flatMap((x) => [...x.secrets, x.service])]);
}
