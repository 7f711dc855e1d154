import type Docker from 'dockerode';
import type { Services } from '../services.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import type { ContainerImageRow } from '../store/repositories/container-images.js';
import { registryAuthFor, type DockerAuth } from './registry-auth.js';

const PULL_TIMEOUT_MS = 300_000;

/**
 * Pulls through the Docker API of the pooled connection (no CLI process on the server), with
 * registry credentials when there are any. A pull error reported inside the progress stream
 * fails the pull like a refused request does.
 */
export async function pullImage(docker: Docker, image: string, auth: DockerAuth | undefined): Promise<void> {
  const pull = (async () => {
    // a refused request (404 manifest unknown, 401) says what failed the same way as an error in the stream
    const stream = (await docker.pull(image, auth ? { authconfig: auth } : {}).catch((e: Error) => {
      throw new Error(`pull of ${image} failed: ${e.message}`);
    })) as NodeJS.ReadableStream;
    const output = await new Promise<Array<{ error?: string; errorDetail?: { message?: string } }>>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null, out: unknown[]) => (err ? reject(err) : resolve(out as never))));
    const failed = output.find((o) => o.error || o.errorDetail);
    if (failed) throw new Error(`pull of ${image} failed: ${failed.errorDetail?.message ?? failed.error}`);
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`pull of ${image} did not finish within ${PULL_TIMEOUT_MS / 1000} s`)), PULL_TIMEOUT_MS);
  });
  try {
    await Promise.race([pull, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Pulls `ref` (an image of the deployment's service) on the deployment's server, with its registry's credentials. */
export async function pullOnServer(s: Pick<Services, 'hosts' | 'registries' | 'secretBox'>, d: Pick<DeploymentRow, 'serverId' | 'environmentId'>,
  image: Pick<ContainerImageRow, 'imageName' | 'registryConnectionId'>, ref: string): Promise<void> {
  const auth = await registryAuthFor(s, d.environmentId, image.imageName, image.registryConnectionId ?? null);
  await pullImage(await s.hosts.docker(d.serverId), ref, auth);
}
