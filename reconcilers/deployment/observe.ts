// Reads desired and actual state of deployments for the pure plan(): the database for desired,
// the server (Docker API, compose file on disk) for actual.
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { composeFileHash } from '../../controller/deploy/deploy-deployment.js';
import { findContainer } from '../../controller/deploy/find-container.js';
import { MANAGED_ROOT } from '../../controller/deploy/compose/compose-path-rules.js';
import { syncServiceConfigOnServer } from '../../controller/config-files/sync-service-config.js';
import { MISSING, type ActualContainer, type DesiredDeployment } from './plan.js';

export async function desiredOf(s: Services, d: DeploymentRow): Promise<DesiredDeployment> {
  const service = await s.services.findById(d.serviceId);
  const image = service?.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
  const managed = !!d.composePath?.startsWith(`${MANAGED_ROOT}/`);
  const [env, compose] = managed
    ? await Promise.all([s.plans.artifacts.latest(d.id, 'env'), s.plans.artifacts.latest(d.id, 'compose')])
    : [undefined, undefined];
  return {
    deploymentId: d.id, containerName: d.containerName,
    // the service holds the desired tag, a deployment the tag it runs; a deployment never rolled
    // out (nor tried) has nothing desired of it yet
    image: image && service?.imageTag && (d.imageTag || d.failedGeneration !== null) ? `${image.imageName}:${service.imageTag}` : null,
    imageId: d.imageDigest, envHash: env?.sha256 ?? null, composeHash: compose?.sha256 ?? null,
    configFiles: (await s.db('config_attachments').where({ serviceId: d.serviceId }).pluck('target_path')) as string[], // pluck reads the raw row: snake_case
  };
}

export async function actualOf(s: Services, d: DeploymentRow): Promise<ActualContainer> {
  const docker = await s.hosts.docker(d.serverId);
  const id = await findContainer(docker, d.containerName);
  if (!id) return MISSING;
  const c = await docker.getContainer(id).inspect();
  return {
    exists: true, running: c.State.Running, state: c.State.Status, image: c.Config.Image, imageId: c.Image,
    labels: c.Config.Labels ?? {}, composeHash: await composeFileHash(s, d),
    configFilesChanged: (await syncServiceConfigOnServer(s, d.serviceId, d.serverId, true))
      .filter((t) => t.status !== 'unchanged').map((t) => t.targetPath),
  };
}
