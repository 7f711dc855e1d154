// The status a deployment row shows is what its container was last seen doing on the server, not
// what the last deploy wrote: a container stopped by hand reads `stopped` and one removed by hand
// `missing` at the next look (a health sweep or its Docker event), and an unreachable server's
// deployments read `unknown`.
import type Docker from 'dockerode';
import type { Services } from '../services.js';
import type { DeploymentRow, DeploymentStatus } from '../store/repositories/deployments.js';

/**
 * Docker's state of the container (null: there is none) to the deployment's status. Only a
 * running container is `running`, one that is not there is `missing`; a failed deploy stays
 * `failed` while an older container still runs (the Degraded condition says why).
 */
export function statusFromContainer(state: string | null, previous: string): DeploymentStatus {
  if (state === null) return 'missing';
  if (state !== 'running') return 'stopped';
  return previous === 'failed' ? 'failed' : 'running';
}

/** Name (without the leading slash) to Docker's summary, for every container on the server. */
export async function listContainersByName(docker: Docker): Promise<Map<string, Docker.ContainerInfo>> {
  const out = new Map<string, Docker.ContainerInfo>();
  for (const c of await docker.listContainers({ all: true })) {
    for (const name of c.Names ?? []) out.set(name.replace(/^\//, ''), c);
  }
  return out;
}

/** Records one deployment's observed status unless a plan wrote a newer one meanwhile. */
export async function recordContainerStatus(s: Services, d: DeploymentRow, next: DeploymentStatus): Promise<boolean> {
  if (d.status === next) return false;
  return s.deployments.recordStatusIf(d.id, d.status, next);
}

export interface ContainerLook {
  /** Deployed deployments no plan is working on, what the look was about. */
  deployments: DeploymentRow[];
  /** Docker's summaries by name; null when the server was not reachable. */
  containers: Map<string, Docker.ContainerInfo> | null;
  /** How long the Docker look took (the container checks' latency). */
  listedInMs: number;
  changed: number;
}

/**
 * Observes every deployed container of a server with one Docker call and records their statuses;
 * a deployment a plan is working on is left to the plan. The monitoring checks use the same look.
 */
export async function refreshContainerStates(s: Services, serverId: string, reachable: boolean): Promise<ContainerLook> {
  const deployed = (await s.deployments.listByServer(serverId)).filter((d) => d.imageTag);
  if (!deployed.length) return { deployments: [], containers: null, listedInMs: 0, changed: 0 };
  const inMotion = await s.plans.steps.deploymentsInMotion(deployed.map((d) => d.id));
  const started = performance.now();
  const containers = reachable ? await listContainersByName(await s.hosts.docker(serverId)) : null;
  const listedInMs = Math.round(performance.now() - started);
  const settled = deployed.filter((x) => !inMotion.has(x.id));
  let changed = 0;
  for (const d of settled) {
    const next = containers ? statusFromContainer(containers.get(d.containerName)?.State ?? null, d.status) : 'unknown';
    if (await recordContainerStatus(s, d, next)) changed++;
  }
  return { deployments: settled, containers, listedInMs, changed };
}
