// What a deployment's container really is, read from Docker (inspect) and from the server's disk
// (mounted config files, the generated compose file), in a canonical form that plan() compares
// with the desired container field by field.
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import type { Services } from '../../controller/services.js';
import type { ServerWithKeyRow } from '../../controller/store/repositories/servers.js';
import { inspectContainer } from '../../controller/deploy/find-container.js';
import { nextContainerName } from '../../controller/deploy/switch-names.js';
import { fileContentHash, LABEL, type DesiredContainer } from '../../controller/model/desired-container.js';
import { restartPolicyOf } from '../../controller/model/restart-policy.js';

export interface ContainerOwner {
  /** Carries stevedore.managed: Stevedore created it. */
  managed: boolean;
  environmentId: string | null;
  /** Name of the owning environment when it is another one (for messages). */
  environmentName: string | null;
  serviceId: string | null;
  deploymentId: string | null;
}

export interface ObservedContainer {
  exists: boolean;
  id: string | null;
  running: boolean;
  /** Docker's state: running, exited, created, ... ("missing" when there is none). */
  state: string;
  /** Docker's health status; null without a healthcheck. */
  health: string | null;
  /** How many times Docker restarted this container (a redeploy makes a new container: since the deploy). */
  restartCount: number;
  /** When it last started (ISO); null when it never did. */
  startedAt: string | null;
  owner: ContainerOwner;
  specHash: string | null;
  /** The image reference the container was created from. */
  image: string | null;
  imageId: string | null;
  env: Record<string, string>;
  /** Normalised like desired ports ("ip:hostPort:containerPort/proto"), sorted. */
  ports: string[];
  /** Normalised mounts ("source:destination[:ro]", an anonymous volume as its destination), sorted. */
  mounts: string[];
  command: string[] | null;
  /** As written (no, always, unless-stopped, on-failure[:N]): restart-policy.ts. */
  restart: string | null;
  healthcheckTest: string[] | null;
  /** Keyed hash of each desired config file as it is on disk (null: missing), by hostPath. */
  files: Record<string, string | null>;
  /** sha256 of the generated compose file on disk; null when missing or not ours. */
  composeFileHash: string | null;
  composeProject: string | null;
  /** The names it is reached by on each network it joined (its aliases), by network. */
  networks: Record<string, string[]>;
  /** This deployment's new container left by an interrupted start-first deploy, when there is one. */
  leftover: { name: string; running: boolean } | null;
}

const MISSING: ObservedContainer = {
  exists: false, id: null, running: false, state: 'missing', health: null, restartCount: 0, startedAt: null,
  owner: { managed: false, environmentId: null, environmentName: null, serviceId: null, deploymentId: null },
  specHash: null, image: null, imageId: null, env: {}, ports: [], mounts: [], command: null, restart: null, healthcheckTest: null,
  files: {}, composeFileHash: null, composeProject: null, networks: {}, leftover: null,
};

/** A fresh "no container" observation (callers fill in files and the compose file). */
export const missing = (): ObservedContainer => ({ ...MISSING, owner: { ...MISSING.owner }, env: {}, files: {}, networks: {} });

const ANONYMOUS = /^[0-9a-f]{64}$/;

/** Canonical observed form of one inspect result (pure). */
export function observedFromInspect(c: Docker.ContainerInspectInfo): ObservedContainer {
  const labels = c.Config.Labels ?? {};
  const env: Record<string, string> = {};
  for (const e of c.Config.Env ?? []) {
    const i = e.indexOf('=');
    if (i > 0) env[e.slice(0, i)] = e.slice(i + 1);
  }
  const ports: string[] = [];
  for (const [key, bindings] of Object.entries(c.HostConfig.PortBindings ?? {}) as Array<[string, Array<{ HostIp?: string; HostPort?: string }> | null]>) {
    for (const b of bindings ?? []) {
      const ip = !b.HostIp || b.HostIp === '0.0.0.0' || b.HostIp === '::' ? '' : b.HostIp;
      ports.push(`${ip}:${b.HostPort ?? ''}:${key.includes('/') ? key : `${key}/tcp`}`);
    }
  }
  const mounts = (c.Mounts ?? []).map((m) => {
    const ro = m.RW === false ? ':ro' : '';
    if (m.Type === 'volume') return m.Name && !ANONYMOUS.test(m.Name) ? `${m.Name}:${m.Destination}${ro}` : m.Destination;
    return `${m.Source}:${m.Destination}${ro}`;
  });
  const health = (c.State as { Health?: { Status?: string } }).Health?.Status ?? null;
  const networks: Record<string, string[]> = {};
  for (const [net, ep] of Object.entries(c.NetworkSettings?.Networks ?? {}) as Array<[string, { Aliases?: string[] | null; DNSNames?: string[] | null }]>) {
    networks[net] = [...new Set([...ep.Aliases ?? [], ...ep.DNSNames ?? []])].sort();
  }
  return {
    exists: true, id: c.Id, running: c.State.Running, state: c.State.Status, health,
    restartCount: c.RestartCount ?? 0, startedAt: c.State.StartedAt && !c.State.StartedAt.startsWith('0001-') ? c.State.StartedAt : null,
    owner: {
      managed: labels[LABEL.managed] === 'true', environmentId: labels[LABEL.environment] ?? null, environmentName: null,
      serviceId: labels[LABEL.service] ?? null, deploymentId: labels[LABEL.deployment] ?? null,
    },
    specHash: labels[LABEL.specHash] ?? null, image: c.Config.Image ?? null, imageId: c.Image ?? null, env,
    ports: [...new Set(ports)].sort(), mounts: [...new Set(mounts)].sort(),
    command: c.Config.Cmd ? [...c.Config.Cmd] : null, restart: restartPolicyOf(c.HostConfig.RestartPolicy),
    healthcheckTest: (c.Config as { Healthcheck?: { Test?: string[] } }).Healthcheck?.Test ?? null,
    files: {}, composeFileHash: null, composeProject: labels['com.docker.compose.project'] ?? null, networks, leftover: null,
  };
}

/** The container by name (or compose service label); MISSING when there is none. */
export async function observeContainer(docker: Docker, containerName: string): Promise<ObservedContainer> {
  const info = await inspectContainer(docker, containerName);
  return info ? observedFromInspect(info) : missing();
}

async function inspectOwn(docker: Docker, name: string, deploymentId: string): Promise<Docker.ContainerInspectInfo | null> {
  try {
    const c = await docker.getContainer(name).inspect();
    return c.Config.Labels?.[LABEL.deployment] === deploymentId ? c : null;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return null;
    throw e;
  }
}

/** Everything plan() needs about one deployment: container, owner's name, files and compose file on disk. */
/** `server`: the server's row with its key when the caller read it already (a batch of looks). */
export async function observeDeployment(s: Pick<Services, 'configStore' | 'environments' | 'hosts'>, desired: DesiredContainer, composeFilePath: string | null,
  server?: ServerWithKeyRow): Promise<ObservedContainer> {
  const docker = await s.hosts.docker(desired.serverId, server);
  const [observed, next] = await Promise.all([
    observeContainer(docker, desired.containerName),
    // only start-first services in direct mode run switches (a look fewer for every other one); a
    // container of that name that is not this deployment's is not a leftover of ours
    desired.mode === 'direct' && desired.updateOrder === 'start-first' ? inspectOwn(docker, nextContainerName(desired.containerName), desired.deploymentId) : null,
  ]);
  observed.leftover = next && { name: nextContainerName(desired.containerName), running: next.State.Running };
  const ownerEnv = observed.owner.environmentId;
  if (ownerEnv && ownerEnv !== desired.environmentId) {
    observed.owner.environmentName = (await s.environments.findById(ownerEnv))?.name ?? null;
  }
  const [files, compose] = await Promise.all([
    Promise.all(desired.files.map(async (f) => {
      const b = await s.hosts.readFile(desired.serverId, f.hostPath);
      return [f.hostPath, b ? fileContentHash(s.configStore.hashKey, b) : null] as const;
    })),
    composeFilePath ? s.hosts.readFile(desired.serverId, composeFilePath) : Promise.resolve(null),
  ]);
  observed.files = Object.fromEntries(files);
  observed.composeFileHash = compose ? createHash('sha256').update(compose).digest('hex') : null;
  return observed;
}
