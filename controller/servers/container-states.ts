// The status a deployment row shows is what its container was last seen doing on the server, not
// what the last deploy wrote: a container stopped by hand reads `stopped` at the next look (a
// health sweep or its Docker event), and an unreachable server's deployments read `unknown`.
import type Docker from 'dockerode';
import type { Services } from '../services.js';
import type { DeploymentRow, DeploymentStatus } from '../store/repositories/deployments.js';

/**
 * Docker's state of the container (null: there is none) to the deployment's status. Only a
 * running container is `running`; a failed deploy stays `failed` while an older container still
 * runs (the Degraded condition says why).
 */
export function statusFromContainer(state: string | null, previous: string): DeploymentStatus {
  if (state !== 'running') return 'stopped';
  return previous === 'failed' ? 'failed' : 'running';
}

/** Name (without the leading slash) to Docker state, for every container on the server. */
export async function containerStates(docker: Docker): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const c of await docker.listContainers({ all: true })) {
    for (const name of c.Names ?? []) out.set(name.replace(/^\//, ''), c.State);
  }
  return out;
}

/** Records one deployment's observed status unless a plan wrote a newer one meanwhile. */
export async function recordContainerStatus(s: Services, d: DeploymentRow, next: DeploymentStatus): Promise<boolean> {
  if (d.status === next) return false;
  return s.deployments.recordStatusIf(d.id, d.status, next);
}

/**
 * Observes every deployed container of a server with one Docker call and records their statuses;
 * a deployment a plan is working on is left to the plan. Answers how many rows changed.
 */
export async function refreshContainerStates(s: Services, serverId: string, reachable: boolean): Promise<number> {
  const deployed = (await s.deployments.listByServer(serverId)).filter((d) => d.imageTag);
  if (!deployed.length) return 0;
  const inMotion = await s.plans.steps.deploymentsInMotion(deployed.map((d) => d.id));
  const states = reachable ? await containerStates(await s.hosts.docker(serverId)) : null;
  let changed = 0;
  for (const d of deployed.filter((x) => !inMotion.has(x.id))) {
    const next = states ? statusFromContainer(states.get(d.containerName) ?? null, d.status) : 'unknown';
    if (await recordContainerStatus(s, d, next)) changed++;
  }
  return changed;
}
