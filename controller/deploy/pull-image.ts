import type Docker from 'dockerode';
import type { Services } from '../services.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import type { ContainerImageRow } from '../store/repositories/container-images.js';
import { registryAuthFor, type DockerAuth } from './registry-auth.js';
import { PullProgress, type PullSummary } from './pull-progress.js';

const PULL_TIMEOUT_MS = 300_000;

/**
 * Pulls through the Docker API of the pooled connection (no CLI process on the server), with
 * registry credentials when there are any. A pull error reported inside the progress stream
 * fails the pull like a refused request does.
 *
 * Docker itself never gives up on a registry that stops sending in the middle of a layer: the
 * pull would hang until the overall timeout. A pull that reports no progress for `stallMs` is
 * cancelled (its stream closed, which makes dockerd drop it) and fails naming what it last got.
 */
export async function pullImage(docker: Docker, image: string, auth: DockerAuth | undefined,
  opts: { stallMs: number }): Promise<PullSummary> {
  const progress = new PullProgress();
  let stream: NodeJS.ReadableStream | undefined;
  let cancelled = false;
  const pull = (async () => {
    // a refused request (404 manifest unknown, 401) says what failed the same way as an error in the stream
    stream = (await docker.pull(image, auth ? { authconfig: auth } : {}).catch((e: Error) => {
      throw new Error(`pull of ${image} failed: ${e.message}`);
    })) as NodeJS.ReadableStream;
    if (cancelled) (stream as unknown as { destroy(): void }).destroy();
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream!, (err: Error | null) => (err ? reject(err) : resolve()), (event: unknown) => progress.record(event as never)));
    const failed = progress.error();
    if (failed) throw new Error(`pull of ${image} failed: ${failed}`);
    return progress.summary();
  })();
  let timer: NodeJS.Timeout | undefined;
  let watchdog: NodeJS.Timeout | undefined;
  const stop = new Promise<never>((_, reject) => {
    const cancel = (why: string) => {
      cancelled = true;
      (stream as unknown as { destroy?(): void } | undefined)?.destroy?.();
      reject(new Error(`pull of ${image} ${why}`));
    };
    timer = setTimeout(() => cancel(`did not finish within ${PULL_TIMEOUT_MS / 1000} s`), PULL_TIMEOUT_MS);
    watchdog = setInterval(() => {
      if (progress.idleMs() >= opts.stallMs) cancel(`made no progress for ${Math.round(opts.stallMs / 1000)} s (${progress.last()}); cancelled`);
    }, Math.min(1000, opts.stallMs));
  });
  try {
    return await Promise.race([pull, stop]);
  } finally {
    clearTimeout(timer);
    clearInterval(watchdog);
    pull.catch(() => undefined);
  }
}

/** Pulls `ref` (an image of the deployment's service) on the deployment's server, with its registry's credentials. */
export async function pullOnServer(s: Pick<Services, 'config' | 'hosts' | 'registries' | 'secretBox'>, d: Pick<DeploymentRow, 'serverId' | 'environmentId'>,
  image: Pick<ContainerImageRow, 'imageName' | 'registryConnectionId'>, ref: string): Promise<PullSummary> {
  const auth = await registryAuthFor(s, d.environmentId, image.imageName, image.registryConnectionId ?? null);
  return pullImage(await s.hosts.docker(d.serverId), ref, auth, { stallMs: s.config.pullStallMs });
}
