import type { Services } from '../../controller/services.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import type { RegistryRow } from '../../controller/store/repositories/registries.js';
import { repositoryOf } from '../../controller/registry/image-reference.js';
import { RegistryError } from '../../controller/registry/registry-error.js';

/** The image's registry connection (its own, else the environment's for the image's host) and its repository there. */
export async function registryOf(s: Pick<Services, 'registries'>, image: ContainerImageRow): Promise<{ registry: RegistryRow; repository: string }> {
  const { host, repository } = repositoryOf(image.imageName);
  const registry = (image.registryConnectionId ? await s.registries.findById(image.registryConnectionId) : undefined)
    ?? (host ? await s.registries.forHost(image.environmentId, host) : undefined);
  if (!registry) {
    throw new RegistryError('not-found', `${image.imageName} has no registry connection: set registryConnectionId or add a registry for ${host ?? 'Docker Hub'}`);
  }
  return { registry, repository };
}
