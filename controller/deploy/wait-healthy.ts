// Health of a freshly started container, from Docker's own healthcheck status. A container
// without a healthcheck counts as healthy once it has stayed running for a moment.
import type Docker from 'dockerode';
import type { HealthCheck } from '../store/repositories/services.js';
import { findContainer } from './find-container.js';

export class UnhealthyContainer extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Deadline for a container to become healthy: its start period plus every retry, with margin. */
export function healthTimeoutMs(h: HealthCheck | null, image?: { Interval?: number; Timeout?: number; Retries?: number; StartPeriod?: number }): number {
  const ns = 1e9;
  const interval = h?.intervalSec ?? (image?.Interval ? image.Interval / ns : 30);
  const timeout = h?.timeoutSec ?? (image?.Timeout ? image.Timeout / ns : 30);
  const retries = h?.retries ?? image?.Retries ?? 3;
  const start = h?.startPeriodSec ?? (image?.StartPeriod ? image.StartPeriod / ns : 0);
  return Math.min(600_000, Math.max(15_000, (start + (interval + timeout) * (retries + 1)) * 1000 + 5000));
}

export interface Healthy { containerId: string; imageId: string }

export async function waitHealthy(docker: Docker, containerName: string, h: HealthCheck | null, log: (l: string) => Promise<void>): Promise<Healthy> {
  const ref = (await findContainer(docker, containerName)) ?? containerName;
  const first = await docker.getContainer(ref).inspect();
  const deadline = Date.now() + healthTimeoutMs(h, first.Config.Healthcheck as never);
  let runningSince = 0;
  for (;;) {
    const c = await docker.getContainer(ref).inspect();
    const health = c.State.Health?.Status;
    if (c.State.Status === 'exited' || c.State.Status === 'dead') {
      throw new UnhealthyContainer(`container ${containerName} exited with code ${c.State.ExitCode}`);
    }
    if (health === 'unhealthy') {
      const last = c.State.Health?.Log?.at(-1);
      throw new UnhealthyContainer(`container ${containerName} is unhealthy${last ? ` (healthcheck exit ${last.ExitCode})` : ''}`);
    }
    if (health === 'healthy') {
      await log(`container ${containerName} is healthy`);
      return { containerId: c.Id, imageId: c.Image };
    }
    if (!health && c.State.Running) {
      runningSince ||= Date.now();
      if (Date.now() - runningSince >= 1500) {
        await log(`container ${containerName} is running (no healthcheck)`);
        return { containerId: c.Id, imageId: c.Image };
      }
    }
    if (Date.now() > deadline) throw new UnhealthyContainer(`container ${containerName} did not become healthy in time (${health ?? c.State.Status})`);
    await sleep(150);
  }
}
