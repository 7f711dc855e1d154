// Health of a freshly started container, from Docker's own healthcheck status. A container
// without a healthcheck counts as healthy once it has stayed running for a moment.
import type Docker from 'dockerode';
import type { HealthCheck } from '../../../controller/store/repositories/services.js';
import { findContainer } from '../../../controller/deploy/find-container.js';
import type { ContainerEventBus } from '../../../controller/hosts/container-event-bus.js';

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

/** Where the container's Docker events arrive (its server's watch), to wait on them instead of polling. */
export interface HealthEvents { bus: ContainerEventBus; serverId: string }

/** Without events (stream down, a container the watch filters out), look this often. */
const POLL_MS = 150;
/** With events, look again anyway this often: the safety net for an event lost in transit. */
const EVENT_FALLBACK_MS = 2000;
/** A container without a healthcheck is healthy once it has stayed running this long. */
const RUNNING_MS = 1500;

/**
 * Waits for the container's health, looking again at each of its Docker events (health_status,
 * die, …: within milliseconds of the change) rather than every 150 ms, when its server's events
 * stream is open and the container is one the stream reports (stevedore.managed).
 */
export async function waitHealthy(docker: Docker, containerName: string, h: HealthCheck | null, log: (l: string) => Promise<void>,
  events?: HealthEvents): Promise<Healthy> {
  const ref = (await findContainer(docker, containerName)) ?? containerName;
  const first = await docker.getContainer(ref).inspect();
  const deadline = Date.now() + healthTimeoutMs(h, first.Config.Healthcheck as never);
  const reported = first.Config.Labels?.['stevedore.managed'] === 'true';
  let runningSince = 0;
  for (;;) {
    const evented = !!events && reported && events.bus.watching(events.serverId);
    const untilRunningLongEnough = runningSince ? Math.max(1, runningSince + RUNNING_MS - Date.now()) : Infinity;
    const next = events?.bus.next(first.Id, Math.min(evented ? EVENT_FALLBACK_MS : POLL_MS, untilRunningLongEnough, Math.max(1, deadline - Date.now())));
    try {
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
        next?.cancel();
        await log(`container ${containerName} is healthy`);
        return { containerId: c.Id, imageId: c.Image };
      }
      if (!health && c.State.Running) {
        runningSince ||= Date.now();
        if (Date.now() - runningSince >= RUNNING_MS) {
          next?.cancel();
          await log(`container ${containerName} is running (no healthcheck)`);
          return { containerId: c.Id, imageId: c.Image };
        }
      }
      if (Date.now() > deadline) throw new UnhealthyContainer(`container ${containerName} did not become healthy in time (${health ?? c.State.Status})`);
    } catch (e) {
      next?.cancel();
      throw e;
    }
    if (next) await next.wait;
    else await sleep(POLL_MS);
  }
}
