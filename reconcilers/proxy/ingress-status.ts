// GET /api/services/{id}/ingress (DECISIONS, Wave 4): per host its certificate and, per server
// that runs the service, whether that server's proxy routes it. Routed only when observed: the
// proxy's live config (read back through its admin API now) holds the host's route forwarding to
// the address of the container the route table picks on that server (or, with HTTPS, redirects
// plain HTTP and forwards HTTPS there). A server that cannot be asked is not routed, and says so.
import type { Services } from '../../controller/services.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { resolveIngress } from '../../controller/model/ingress.js';
import { certificatesFor, type CertificateState } from '../../controller/ingress/certificates.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { routeId, routesOf } from './caddy-config.js';
import { upstreamOf } from './route-table.js';
import { PROXY_CONTAINER, PROXY_LABEL } from './proxy-container.js';
import { observeContainers, readLiveConfig, type ProxyServices } from './reconcile-proxy.js';

export interface IngressServerStatus { serverId: string; serverName: string; routed: boolean; message: string | null }
export interface IngressHostStatus {
  host: string;
  certificate: { state: CertificateState; issuer: string | null; notAfter: string | null; error: string | null };
  servers: IngressServerStatus[];
}

type StatusServices = ProxyServices & Pick<Services, 'deployments'>;

export async function ingressStatus(s: StatusServices, service: ServiceRow): Promise<{ hosts: IngressHostStatus[] }> {
  if (!service.ingress) return { hosts: [] };
  const ingress = resolveIngress(service.ingress);
  const certificates = await certificatesFor(s, service.environmentId, ingress);
  const deployments = await s.deployments.listByService(service.id);
  const perServer = await Promise.all(deployments.map(async (d) => {
    const server = await s.servers.findById(d.serverId);
    const serverName = server?.name ?? d.serverId;
    const status = (routed: boolean, message: string | null) => (host: string): IngressServerStatus => ({ serverId: d.serverId, serverName, routed, message: routed ? null : message ?? `not routed: ${host}` });
    try {
      const containers = await observeContainers(s, d.serverId);
      const proxy = containers.find((c) => c.name === PROXY_CONTAINER && c.labels[PROXY_LABEL] === 'true');
      if (!proxy?.running) return () => status(false, 'no proxy runs on this server yet')('');
      const upstream = upstreamOf(d.id, containers);
      if ('problem' in upstream) return () => status(false, upstream.problem)('');
      const live = routesOf(await readLiveConfig(s, d.serverId, 2));
      const dial = `${upstream.address}:${ingress.port}`;
      return (host: string) => {
        const key = { serviceId: service.id, host, path: ingress.path };
        const http = live.get(routeId('http', key));
        const https = live.get(routeId('https', key));
        const secured = !!certificates.get(host)?.pem;
        if (!http) return status(false, `the proxy's live config has no route for ${host}`)(host);
        if (secured && !https?.dials.includes(dial)) return status(false, `the proxy does not serve ${host} over HTTPS to ${upstream.containerName} yet`)(host);
        if (!http.redirect && !http.dials.includes(dial)) return status(false, `the proxy's route for ${host} does not forward to ${upstream.containerName} yet`)(host);
        return status(true, null)(host);
      };
    } catch (e) {
      return () => status(false, `the server could not be asked: ${messageOf(e)}`)('');
    }
  }));
  return {
    hosts: ingress.hosts.map((host) => {
      const c = certificates.get(host)!;
      return { host, certificate: { state: c.state, issuer: c.issuer, notAfter: c.notAfter, error: c.error }, servers: perServer.map((f) => f(host)) };
    }),
  };
}
