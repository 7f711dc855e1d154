// The whole container a deployment should run, rendered from store data by one pure function.
// Direct mode creates the container from it, compose mode writes its files from it, and drift,
// dry runs and status compare it with what Docker reports. Its canonical form is hashed; the hash
// rides on the container as a label, so "same hash, running" means nothing to do.
import type { HealthCheck, UpdateOrder } from '../../controller/store/repositories/services.js';
import { environmentNetworkName } from '../../controller/deploy/switch-names.js';
import { renderEnv, type EnvSources } from '../../controller/deploy/compose/render-env.js';
import { configFileHostPath } from '../../controller/deploy/compose/compose-path-rules.js';
import {
  canonicalJson, keyedHash, LABEL, normalizePort, type DeployMode, type DesiredContainer, type DesiredHealthcheck,
} from '../../controller/model/desired-container.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from '../../controller/model/restart-policy.js';

export interface DesiredInput {
  service: {
    id: string; name: string; environmentId: string; env: Record<string, string> | null; ports: string[] | null;
    volumes: string[] | null; command: string[] | null; healthCheck: HealthCheck | null; composeTemplate: string | null;
    updateOrder?: UpdateOrder; drainSec?: number; restartPolicy?: RestartPolicy;
  };
  deployment: { id: string; containerName: string; serverId: string; adoptedContainerId?: string | null };
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
    restart: shaped ? null : service.restartPolicy ?? DEFAULT_RESTART_POLICY,
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
    adoptedContainerId: d.adoptedContainerId ?? null,
    specHash,
  };
}
