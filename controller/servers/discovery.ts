// Container discovery: what runs on a server right now, recorded in server_containers (the whole
// set replaced per server, in one transaction) and linked to the deployment on that server whose
// container name matches. Docker is asked through services.hosts (API over the pooled ssh
// connection, or the local socket).
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';

export interface DiscoveredContainer {
  containerId: string;
  name: string;
  image: string;
  state: string;
  status: string | null;
  labels: Record<string, string>;
  ports: unknown[];
  createdAt: string | null;
  deploymentId: string | null;
  serviceId: string | null;
  discoveredAt: string;
}

export async function discoverContainers(s: Services, server: ServerRow): Promise<{ serverId: string; discoveredAt: string; items: DiscoveredContainer[] }> {
  const docker = await s.hosts.docker(server.id);
  const running = await docker.listContainers({ all: false });
  const deployments = await s.deploymentViews.onServer(server.id);
  const byName = new Map(deployments.map((d) => [d.containerName, d]));
  const discoveredAt = new Date();
  const rows = running.map((c) => {
    const name = (c.Names?.[0] ?? c.Id.slice(0, 12)).replace(/^\//, '');
    return {
      serverId: server.id, environmentId: server.environmentId, containerId: c.Id, name, image: c.Image, state: c.State,
      status: c.Status ?? null, labels: JSON.stringify(c.Labels ?? {}), ports: JSON.stringify(c.Ports ?? []),
      containerCreatedAt: c.Created ? new Date(c.Created * 1000) : null, deploymentId: byName.get(name)?.id ?? null,
      discoveredAt,
    };
  });
  await s.serverContainers.replace(server.id, rows);
  return { serverId: server.id, discoveredAt: discoveredAt.toISOString(), items: await listServerContainers(s, server.id) };
}

export async function listServerContainers(s: Services, serverId: string): Promise<DiscoveredContainer[]> {
  const rows = await s.serverContainers.listWithService(serverId);
  return rows.map((r) => ({
    containerId: r.containerId, name: r.name, image: r.image, state: r.state, status: r.status, labels: r.labels, ports: r.ports,
    createdAt: r.containerCreatedAt ? new Date(r.containerCreatedAt).toISOString() : null, deploymentId: r.deploymentId,
    serviceId: r.serviceId ?? null, discoveredAt: new Date(r.discoveredAt).toISOString(),
  }));
}
