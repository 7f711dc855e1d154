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
  /** Where the address came from: the network's IPAM configuration, or the bridge interface itself. */
  source: 'ipam' | 'interface' | null;
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

interface BridgeNetwork {
  IPAM?: { Config?: Array<{ Gateway?: string; Subnet?: string }> | null };
  Options?: Record<string, string> | null;
}

const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

/** The IPv4 address of a network interface on the server (`ip -4 -o addr show dev NAME`), or null. */
async function interfaceAddress(s: Services, server: ServerRow, name: string): Promise<string | null> {
  if (!IFNAME.test(name)) return null;
  const res = await s.hosts.exec(server.id, ['ip', '-4', '-o', 'addr', 'show', 'dev', name], { check: false, timeoutMs: 15_000 });
  return res.code === 0 ? /\binet (\d+\.\d+\.\d+\.\d+)\//.exec(res.stdout)?.[1] ?? null : null;
}

export async function detectHostGateway(s: Services, server: ServerRow): Promise<HostGateway> {
  const docker = await s.hosts.docker(server.id);
  const [version, bridge] = await Promise.all([
    docker.version() as Promise<{ Version: string }>,
    docker.getNetwork('bridge').inspect() as Promise<BridgeNetwork>,
  ]);
  const config = (bridge.IPAM?.Config ?? []).find((c) => c.Gateway && !c.Gateway.includes(':')) ?? bridge.IPAM?.Config?.[0];
  let gateway = config?.Gateway ?? null;
  let source: HostGateway['source'] = gateway ? 'ipam' : null;
  if (!gateway) {
    // Docker does not always record the default bridge's gateway (20.10 leaves it out): the
    // bridge interface's own address is the one containers route to
    gateway = await interfaceAddress(s, server, bridge.Options?.['com.docker.network.bridge.name'] ?? 'docker0');
    if (gateway) source = 'interface';
  }
  const supported = atLeast(version.Version, 20, 10);
  return {
    serverId: server.id, gateway, subnet: config?.Subnet ?? null, network: 'bridge', source, dockerVersion: version.Version,
    hostGatewaySupported: supported,
    extraHost: supported ? 'host.docker.internal:host-gateway' : gateway ? `host.docker.internal:${gateway}` : null,
    detectedAt: new Date().toISOString(),
  };
}
