// Which container each ingress route of a server forwards to, decided from what the server runs
// (a pure function over `docker ps`): the newest running container of the deployment that is
// healthy (or has no health check). A container still starting or unhealthy is never routed to,
// so a version whose health check fails never takes the route; once the new one of a switch is
// healthy the route moves to it, by its address on a network the proxy shares with it.
import { resolveIngress, type Ingress } from '../../controller/model/ingress.js';
import { LABEL } from '../../controller/model/desired-container.js';
import type { HostCertificate } from '../../controller/ingress/certificates.js';
import type { ProxyRoute, ProxyTable } from './caddy-config.js';

export interface ObservedContainer {
  id: string;
  name: string;
  labels: Record<string, string>;
  running: boolean;
  /** Docker's health: null when the container has no health check. */
  health: 'healthy' | 'unhealthy' | 'starting' | null;
  /** Seconds since the epoch. */
  created: number;
  /** Address on each network it is joined to. */
  networks: Record<string, string>;
}

/** The default bridge the proxy always joins (containers of stop-first services live there). */
export const DEFAULT_NETWORK = 'bridge';

/** From a `docker ps` status such as "Up 3 seconds (health: starting)". */
export function healthOfStatus(status: string): ObservedContainer['health'] {
  if (/\(healthy\)/.test(status)) return 'healthy';
  if (/\(unhealthy\)/.test(status)) return 'unhealthy';
  if (/\(health: starting\)/.test(status)) return 'starting';
  return null;
}

export interface Upstream { containerId: string; containerName: string; network: string; address: string }

/** The container a deployment's route forwards to, or why there is none. */
export function upstreamOf(deploymentId: string, containers: readonly ObservedContainer[]): Upstream | { problem: string } {
  const mine = containers.filter((c) => c.labels[LABEL.deployment] === deploymentId && c.running);
  if (!mine.length) return { problem: 'no container of the service runs on this server' };
  const ready = mine.filter((c) => c.health === null || c.health === 'healthy').sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
  if (!ready.length) return { problem: `the container is ${mine[0]!.health === 'unhealthy' ? 'unhealthy' : 'not healthy yet'}` };
  const c = ready[0]!;
  // the environment's network (start-first) before the default bridge
  const network = Object.keys(c.networks).sort((a, b) => Number(a === DEFAULT_NETWORK) - Number(b === DEFAULT_NETWORK) || a.localeCompare(b))
    .find((n) => c.networks[n]);
  if (!network) return { problem: `${c.name} has no address on a network the proxy can join` };
  return { containerId: c.id, containerName: c.name, network, address: c.networks[network]! };
}

export interface IngressEntry {
  service: { id: string; name: string; ingress: Ingress };
  deployments: Array<{ id: string }>;
  /** Each host's certificate (controller/ingress/certificates.ts). */
  certificates: Map<string, HostCertificate>;
}

export interface ServerRoutes {
  table: ProxyTable;
  /** Networks the proxy must be joined to (besides the default bridge). */
  networks: string[];
  /** Per service: the container its routes forward to, or why none. */
  upstreams: Map<string, Upstream | { problem: string }>;
}

/** The whole route table of one server's proxy. */
export function routeTableOf(entries: readonly IngressEntry[], containers: readonly ObservedContainer[],
  o: { httpsPort: number; acmeChallengeUrl: string | null }): ServerRoutes {
  const routes: ProxyRoute[] = [];
  const networks = new Set<string>();
  const upstreams = new Map<string, Upstream | { problem: string }>();
  for (const e of entries) {
    const ingress = resolveIngress(e.service.ingress);
    // one deployment of a service per server is the rule; should there be more, each is an upstream
    const found = e.deployments.map((d) => upstreamOf(d.id, containers));
    const ok = found.filter((u): u is Upstream => 'address' in u);
    upstreams.set(e.service.id, ok[0] ?? found[0] ?? { problem: 'no deployment of the service on this server' });
    for (const u of ok) if (u.network !== DEFAULT_NETWORK) networks.add(u.network);
    for (const host of ingress.hosts) {
      // whenever one is held: a host whose renewal failed keeps serving the certificate it had
      const certificate = e.certificates.get(host)?.pem ?? null;
      routes.push({
        host, path: ingress.path, serviceId: e.service.id, certificate,
        upstreams: ok.map((u) => `${u.address}:${ingress.port}`),
        redirectHttp: !!certificate && ingress.redirectHttp,
      });
    }
  }
  return { table: { httpsPort: o.httpsPort, acmeChallenge: o.acmeChallengeUrl ? { url: o.acmeChallengeUrl } : null, routes }, networks: [...networks].sort(), upstreams };
}
