// The address a container reaches its host by: the gateway of Docker's default bridge network
// (docker0), asked of the server's own Docker. Docker >= 20.10 also resolves the name
// `host-gateway` in --add-host to that address, which is what a service should use when it can.
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';

export interface HostGateway {
  serverId: string;
  /** The bridge gateway address; null when the bridge network has none (e.g. --bridge=none). */
  gateway: string | null;
  subnet: string | null;
  network: string;
  dockerVersion: string;
  /** The daemon understands `--add-host name:host-gateway`. */
  hostGatewaySupported: boolean;
  /** What to put in a service's extra hosts to reach the host as host.docker.internal. */
  extraHost: string | null;
  detectedAt: string;
}

const atLeast = (version: string, major: number, minor: number) => {
  const [a, b] = version.split('.').map((x) => Number.parseInt(x, 10));
  return a > major || (a === major && b >= minor);
};

export async function detectHostGateway(s: Services, server: ServerRow): Promise<HostGateway> {
  const docker = await s.hosts.docker(server.id);
  const [version, bridge] = await Promise.all([
    docker.version() as Promise<{ Version: string }>,
    docker.getNetwork('bridge').inspect() as Promise<{ IPAM?: { Config?: Array<{ Gateway?: string; Subnet?: string }> | null } }>,
  ]);
  const config = (bridge.IPAM?.Config ?? []).find((c) => c.Gateway && !c.Gateway.includes(':')) ?? bridge.IPAM?.Config?.[0];
  const gateway = config?.Gateway ?? null;
  const supported = atLeast(version.Version, 20, 10);
  return {
    serverId: server.id, gateway, subnet: config?.Subnet ?? null, network: 'bridge', dockerVersion: version.Version,
    hostGatewaySupported: supported,
    extraHost: supported ? 'host.docker.internal:host-gateway' : gateway ? `host.docker.internal:${gateway}` : null,
    detectedAt: new Date().toISOString(),
  };
}
