// The proxy reconciler (docs/ingress.md): one key per server (`proxy/<serverId>`). It re-reads the
// services with an ingress that run a deployment there and what the server runs, renders the
// server's whole route table (route-table.ts, caddy-config.ts), makes sure the proxy container
// is there as desired, reads the live config back through the admin API, loads the rendered one
// when they differ (the drift is healed and logged), and reads it back again: what it returns is
// what the proxy was observed to route. A server with no ingress route gets no proxy, and one
// whose proxy is no longer needed has it removed.
import type { Services } from '../../controller/services.js';
import type { ServerRow } from '../../controller/store/repositories/servers.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { networkConnect, rm } from '../../controller/hosts/commands/docker.js';
import { LABEL } from '../../controller/model/desired-container.js';
import { resolveIngress } from '../../controller/model/ingress.js';
import { certificatesFor } from '../../controller/ingress/certificates.js';
import { canonicalConfig, renderCaddyConfig } from './caddy-config.js';
import { healthOfStatus, routeTableOf, type IngressEntry, type ObservedContainer, type ServerRoutes } from './route-table.js';
import { loadConfig, PROXY_CONTAINER, PROXY_LABEL, PROXY_SPEC_LABEL, proxySpecHash, readConfig, runProxy, type ProxySpec } from './proxy-container.js';

export const PROXY_KIND = 'proxy';
export const proxyKey = (serverId: string) => `${PROXY_KIND}/${serverId}`;

/** What a reconcile reads and drives; a deploy's switch has no logger of its own (it logs to its step). */
export type ProxyServices = Pick<Services, 'servers' | 'services' | 'settings' | 'hosts' | 'config' | 'configStore' | 'certificates'> & Partial<Pick<Services, 'logger'>>;

/** The managed containers of a server as the route table reads them (one `docker ps` through the pooled connection). */
export async function observeContainers(s: Pick<Services, 'hosts'>, serverId: string): Promise<ObservedContainer[]> {
  const docker = await s.hosts.docker(serverId);
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABEL.managed}=true`] } });
  return list.map((c) => ({
    id: c.Id, name: (c.Names?.[0] ?? '').replace(/^\//, ''), labels: c.Labels ?? {}, running: c.State === 'running',
    health: healthOfStatus(c.Status ?? ''), created: c.Created,
    networks: Object.fromEntries(Object.entries(c.NetworkSettings?.Networks ?? {}).map(([n, v]) => [n, v.IPAddress]).filter(([, ip]) => !!ip)),
  }));
}

/** What a reconcile of a server's proxy reads from the store: its row, and its services with an ingress. */
export interface ProxyRows {
  server: ServerRow | undefined;
  found: Array<{ service: ServiceRow; deployments: DeploymentRow[] }>;
}

/** The rows of many servers' reconciles with three queries (a batch of the resync), by server. */
export async function proxyRowsOf(s: Pick<Services, 'servers' | 'services'>, serverIds: string[]): Promise<Map<string, ProxyRows>> {
  const [servers, found] = await Promise.all([s.servers.findByIds(serverIds), s.services.listIngressOnServers(serverIds)]);
  const byId = new Map(servers.map((r) => [r.id, r]));
  return new Map(serverIds.map((id) => [id, { server: byId.get(id), found: found.get(id) ?? [] }]));
}

/** The services with an ingress on the server, each with its hosts' certificates. */
async function ingressEntries(s: ProxyServices, found: ProxyRows['found']): Promise<IngressEntry[]> {
  const out: IngressEntry[] = [];
  for (const { service, deployments } of found) {
    const certificates = await certificatesFor(s, service.environmentId, resolveIngress(service.ingress!));
    out.push({ service: { id: service.id, name: service.name, ingress: service.ingress! }, deployments, certificates });
  }
  return out;
}

async function proxySpecOf(s: ProxyServices, server: ServerRow): Promise<ProxySpec> {
  const ops = await s.settings.get<{ ingressHttpPort?: number; ingressHttpsPort?: number }>(server.environmentId, 'operations');
  return { image: s.config.ingressProxyImage, httpPort: ops.ingressHttpPort ?? 80, httpsPort: ops.ingressHttpsPort ?? 443, environmentId: server.environmentId };
}

/** What the proxy of a server was observed to route after a reconcile. */
export interface ProxyObservation {
  serverId: string;
  routes: ServerRoutes | null;
  /** The live config read back from the admin API; null: no proxy (none needed, or none reachable). */
  live: unknown;
  /** Why the proxy is not routing, when it is not. */
  problem: string | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The live config; a proxy just started may take a moment before its admin API answers. */
export async function readLiveConfig(s: Pick<Services, 'hosts'>, serverId: string, attempts = 1): Promise<unknown> {
  for (let i = 1; ; i++) {
    const res = await s.hosts.exec(serverId, readConfig(), { check: false, timeoutMs: 10_000 });
    if (res.code === 0) return JSON.parse(res.stdout || 'null');
    if (i >= attempts) throw new Error(`the proxy's admin API did not answer: ${(res.stderr || res.stdout).trim().slice(0, 300)}`);
    await sleep(200);
  }
}

// One reconcile of a server's proxy at a time in this process: the queue's and a deploy's switch.
const running = new Map<string, Promise<unknown>>();

/** `rows`: read by the caller for a batch of servers (when its batch started); absent: read here. */
export async function reconcileProxy(s: ProxyServices, serverId: string, rows?: ProxyRows): Promise<ProxyObservation> {
  const before = running.get(serverId);
  // rows read while a reconcile of this server was still running may be older than what it did
  const read = before ? undefined : rows;
  const mine = (before ?? Promise.resolve()).catch(() => undefined).then(() => reconcileOnce(s, serverId, read));
  running.set(serverId, mine);
  try {
    return await mine;
  } finally {
    if (running.get(serverId) === mine) running.delete(serverId);
  }
}

async function reconcileOnce(s: ProxyServices, serverId: string, rows?: ProxyRows): Promise<ProxyObservation> {
  const { server, found } = rows ?? (await proxyRowsOf(s, [serverId])).get(serverId)!;
  if (!server) return { serverId, routes: null, live: null, problem: 'the server is gone' };
  const entries = await ingressEntries(s, found);
  // a server with no route only needs a look for a proxy to remove; one that cannot be asked now
  // is looked at again by the next resync (no retry storm for servers that never had a proxy)
  const containers = entries.length ? await observeContainers(s, serverId) : await observeContainers(s, serverId).catch(() => null);
  if (!containers) return { serverId, routes: null, live: null, problem: null };
  const named = containers.find((c) => c.name === PROXY_CONTAINER);
  if (named && named.labels[PROXY_LABEL] !== 'true') {
    // a container of that name Stevedore did not make is never touched
    return { serverId, routes: null, live: null, problem: `a container named ${PROXY_CONTAINER} that Stevedore does not own runs on this server` };
  }
  const proxy = named ?? null;
  if (!entries.length) {
    if (proxy) {
      await s.hosts.exec(serverId, rm(proxy.id, { force: true }));
      s.logger?.info('removed the proxy: no ingress route on this server any more', { serverId });
    }
    return { serverId, routes: null, live: null, problem: null };
  }
  const spec = await proxySpecOf(s, server);
  let joined = proxy?.networks ?? {};
  let fresh = false;
  if (!proxy || !proxy.running || proxy.labels[PROXY_SPEC_LABEL] !== proxySpecHash(spec)) {
    if (proxy) await s.hosts.exec(serverId, rm(proxy.id, { force: true }));
    await s.hosts.exec(serverId, runProxy(spec), { timeoutMs: 120_000 });
    s.logger?.info(proxy ? 'recreated the proxy (stopped, or its image or ports changed)' : 'started the proxy', { serverId, image: spec.image });
    joined = { bridge: 'new' };
    fresh = true;
  }
  const routes = routeTableOf(entries, containers, { httpsPort: spec.httpsPort, acmeChallengeUrl: s.config.publicUrl });
  for (const network of routes.networks) if (!joined[network]) await s.hosts.exec(serverId, networkConnect(network, PROXY_CONTAINER));
  const rendered = renderCaddyConfig(routes.table);
  const live = await readLiveConfig(s, serverId, fresh ? 50 : 3);
  if (canonicalConfig(live) === canonicalConfig(rendered)) return { serverId, routes, live, problem: null };
  const res = await s.hosts.exec(serverId, loadConfig(), { stdin: JSON.stringify(rendered), check: false, timeoutMs: 30_000 });
  if (res.code !== 0) throw new Error(`the proxy refused its config: ${(res.stderr || res.stdout).trim().slice(0, 500)}`);
  if (live && !fresh) s.logger?.info('the proxy config differed from the route table: loaded it', { serverId, routes: routes.table.routes.length });
  const after = await readLiveConfig(s, serverId, 3);
  const problem = canonicalConfig(after) === canonicalConfig(rendered) ? null : 'the proxy reads back a config other than the one loaded';
  return { serverId, routes, live: after, problem };
}
