// A server's whole route table as Caddy's JSON config (https://caddyserver.com/docs/json/), one
// pure function: what the proxy reconciler loads through the admin API, and compares with what it
// reads back. Caddy's own automatic HTTPS is off: certificates come from Stevedore (a secret of
// the environment, or the controller's ACME issuance), never from the proxy asking a CA itself,
// so every server serving a host serves the same certificate.

import type { PemCertificate } from '../../controller/ingress/certificates.js';

export interface ProxyRoute {
  host: string;
  /** The path prefix ("/" for everything). */
  path: string;
  /** Where the route forwards: "ip:port" of the service's container on this server; none: 503. */
  upstreams: string[];
  /** HTTPS with this certificate; null: plain HTTP only (tls off, or a certificate still pending). */
  certificate: PemCertificate | null;
  /** Plain HTTP answers with a redirect to HTTPS (only when there is a certificate to serve). */
  redirectHttp: boolean;
  /** Who the route is for, kept in the config so a read-back names it. */
  serviceId: string;
}

export interface ProxyTable {
  /** The host port HTTPS is published on: a redirect names it unless it is 443. */
  httpsPort: number;
  /** Where /.well-known/acme-challenge/ goes on port 80 (the controller's public URL); null: nowhere. */
  acmeChallenge: { url: string } | null;
  routes: ProxyRoute[];
}

/** The ports the proxy listens on inside its container; the host ports are published onto them. */
export const CONTAINER_HTTP_PORT = 80;
export const CONTAINER_HTTPS_PORT = 443;
export const ADMIN_LISTEN = 'localhost:2019';
export const ACME_CHALLENGE_PATH = '/.well-known/acme-challenge/*';

type Json = Record<string, unknown>;

const pathMatch = (path: string) => (path === '/' ? {} : { path: [path, `${path}/*`] });
/** Longer prefixes first: /api is matched before / on the same host. */
const bySpecificity = (a: ProxyRoute, b: ProxyRoute) => a.host.localeCompare(b.host) || b.path.length - a.path.length || a.path.localeCompare(b.path);

function proxyHandler(r: ProxyRoute): Json {
  if (!r.upstreams.length) {
    return { handler: 'static_response', status_code: 503, body: 'no container of this service runs on this server', headers: { 'Content-Type': ['text/plain'] } };
  }
  return {
    handler: 'reverse_proxy',
    upstreams: r.upstreams.map((dial) => ({ dial })),
    // a dial that fails (a container stopping as the route moves) is tried again, for a moment,
    // instead of answering 502 at once
    load_balancing: { try_duration: '3s', try_interval: '100ms' },
  };
}

function route(id: string, match: Json, handle: Json[]): Json {
  return { '@id': id, match: [match], handle, terminal: true };
}

/** Where the challenge goes: the controller, as its public URL names it (Host header set to it). */
function challengeHandler(url: string): Json {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  const port = u.port || (tls ? '443' : '80');
  return {
    handler: 'reverse_proxy',
    upstreams: [{ dial: `${u.hostname}:${port}` }],
    headers: { request: { set: { Host: [u.host] } } },
    ...(tls && { transport: { protocol: 'http', tls: { server_name: u.hostname } } }),
  };
}

const notFound = (): Json => ({
  '@id': 'stevedore-no-route', handle: [{ handler: 'static_response', status_code: 404, body: 'no route for this host', headers: { 'Content-Type': ['text/plain'] } }], terminal: true,
});

/** The route's id in the config: which service, host and path (read back by observe). */
export const routeId = (scheme: 'http' | 'https', r: Pick<ProxyRoute, 'serviceId' | 'host' | 'path'>) => `stevedore-${scheme}-${r.serviceId}-${r.host}${r.path === '/' ? '' : r.path}`;

export function renderCaddyConfig(table: ProxyTable): Json {
  const routes = [...table.routes].sort(bySpecificity);
  const httpRoutes: Json[] = [];
  if (table.acmeChallenge) {
    httpRoutes.push(route('stevedore-acme-challenge', { path: [ACME_CHALLENGE_PATH] }, [challengeHandler(table.acmeChallenge.url)]));
  }
  const httpsPort = table.httpsPort === 443 ? '' : `:${table.httpsPort}`;
  for (const r of routes) {
    const handle = r.certificate && r.redirectHttp
      ? [{ handler: 'static_response', status_code: 308, headers: { Location: [`https://{http.request.host}${httpsPort}{http.request.uri}`] } }]
      : [proxyHandler(r)];
    httpRoutes.push(route(routeId('http', r), { host: [r.host], ...pathMatch(r.path) }, handle));
  }
  httpRoutes.push(notFound());
  const servers: Json = {
    http: { listen: [`:${CONTAINER_HTTP_PORT}`], automatic_https: { disable: true }, routes: httpRoutes },
  };
  const secured = routes.filter((r) => r.certificate);
  const certificates: Json[] = [];
  if (secured.length) {
    const hosts = [...new Set(secured.map((r) => r.host))];
    servers.https = {
      listen: [`:${CONTAINER_HTTPS_PORT}`],
      automatic_https: { disable: true },
      // each host's certificate is picked by its tag, so two hosts never swap certificates
      tls_connection_policies: hosts.map((h) => ({ match: { sni: [h] }, certificate_selection: { any_tag: [`host:${h}`] } })),
      routes: [...secured.map((r) => route(routeId('https', r), { host: [r.host], ...pathMatch(r.path) }, [proxyHandler(r)])), notFound()],
    };
    for (const h of hosts) {
      const c = secured.find((r) => r.host === h)!.certificate!;
      certificates.push({ certificate: c.certificatePem, key: c.keyPem, tags: [`host:${h}`] });
    }
  }
  return {
    admin: { listen: ADMIN_LISTEN },
    apps: {
      http: { servers },
      ...(certificates.length && { tls: { certificates: { load_pem: certificates } } }),
    },
  };
}

/** What a live config (read back from the admin API) routes, by route id: its upstream dials, or a redirect. */
export function routesOf(config: unknown): Map<string, { dials: string[]; redirect: boolean }> {
  const out = new Map<string, { dials: string[]; redirect: boolean }>();
  const servers = (config as { apps?: { http?: { servers?: Record<string, { routes?: Json[] }> } } } | null)?.apps?.http?.servers ?? {};
  for (const server of Object.values(servers)) {
    for (const r of server.routes ?? []) {
      const id = r['@id'];
      if (typeof id !== 'string') continue;
      const handle = (r.handle as Json[] | undefined) ?? [];
      const dials = handle.flatMap((h) => (h.handler === 'reverse_proxy' ? ((h.upstreams as Array<{ dial: string }>) ?? []).map((u) => u.dial) : []));
      out.set(id, { dials, redirect: handle.some((h) => h.handler === 'static_response' && h.status_code === 308) });
    }
  }
  return out;
}

/** Keys sorted, so a config and its read-back compare as text. */
export function canonicalConfig(v: unknown): string {
  const sort = (x: unknown): unknown => (Array.isArray(x) ? x.map(sort)
    : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x as Json).sort(([a], [b]) => a.localeCompare(b)).map(([k, y]) => [k, sort(y)])) : x);
  return JSON.stringify(sort(v));
}
