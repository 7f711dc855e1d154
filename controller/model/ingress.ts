// Where a service is reached from outside (docs/ingress.md): its hosts, the container port, a path
// prefix, TLS and the HTTP→HTTPS redirect (DECISIONS, Wave 4). The proxy on every server that runs
// the service (reconcilers/proxy/) routes these; the rules here are the one check the API, the
// manifests and the renderer share.

export type IngressTls = 'auto' | 'off' | { secretRef: string };

/** A service's `ingress` as written (API, manifests): what is left out takes its default. */
export interface Ingress {
  hosts: string[];
  port: number;
  path?: string;
  tls?: IngressTls;
  redirectHttp?: boolean;
}

/** The same with every default applied: what the proxy renders. */
export type ResolvedIngress = Required<Ingress>;

export const DEFAULT_INGRESS_PATH = '/';

/**
 * Published (to every replica) when a service's ingress is written without a plan to follow it:
 * an API PATCH, a manifest apply, a deletion. The leader's proxy worker looks at the servers that
 * run it (`data.serverIds` when the service is gone, else its deployments').
 */
export const INGRESS_CHANGED = 'ingress.changed';
export const DEFAULT_INGRESS_TLS: IngressTls = 'auto';

/** A DNS name of letters, digits and hyphens, labels of 1-63, at most 253 characters, at least two labels; no wildcard. */
const LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
export const HOST_PATTERN = `^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`;
/** A path prefix: "/" or "/segment/…" of URL path characters, no trailing slash but the root's. */
export const PATH_PATTERN = '^/([A-Za-z0-9._~!$&\'()*+,;=:@%-]+(/[A-Za-z0-9._~!$&\'()*+,;=:@%-]+)*)?$';

const hostRe = new RegExp(HOST_PATTERN);
const pathRe = new RegExp(PATH_PATTERN);

export function resolveIngress(i: Ingress): ResolvedIngress {
  const tls = i.tls ?? DEFAULT_INGRESS_TLS;
  return {
    hosts: i.hosts.map((h) => h.toLowerCase()), port: i.port, path: i.path ?? DEFAULT_INGRESS_PATH, tls,
    redirectHttp: i.redirectHttp ?? tls !== 'off',
  };
}

export const tlsSecretOf = (tls: IngressTls | undefined): string | null => (tls && typeof tls === 'object' ? tls.secretRef : null);

/** What is wrong with an ingress beyond its schema (field under `ingress`, message), or null. */
export function ingressProblem(i: Ingress | null | undefined): { field: string; message: string } | null {
  if (!i) return null;
  const seen = new Set<string>();
  for (const [n, h] of i.hosts.entries()) {
    if (!hostRe.test(h)) {
      return { field: `ingress.hosts.${n}`, message: `ingress host '${h}' is not a DNS name (labels of letters, digits and hyphens, at least two, no wildcard)` };
    }
    if (seen.has(h.toLowerCase())) return { field: `ingress.hosts.${n}`, message: `ingress host '${h}' is listed twice` };
    seen.add(h.toLowerCase());
  }
  if (i.path !== undefined && !pathRe.test(i.path)) {
    return { field: 'ingress.path', message: `ingress path '${i.path}' is not a path prefix such as "/" or "/api" (no trailing slash, no query)` };
  }
  if (i.redirectHttp === true && i.tls === 'off') {
    return { field: 'ingress.redirectHttp', message: 'ingress redirectHttp needs TLS: with tls "off" there is no HTTPS to redirect to' };
  }
  return null;
}

/** One service's claim on hosts, as the store (or a manifests apply) holds it. */
export interface IngressClaim {
  environmentId: string;
  environmentName?: string;
  serviceId: string | null;
  serviceName: string;
  ingress: Ingress;
}

export interface ClaimConflict { field: string; message: string }

/**
 * Why `claim` cannot take its hosts, or null: a host another environment's service serves is
 * refused (one environment never takes another's traffic), and within an environment two
 * services never share a host and path.
 */
export function claimConflict(claim: IngressClaim, others: readonly IngressClaim[]): ClaimConflict | null {
  const mine = resolveIngress(claim.ingress);
  for (const other of others) {
    if (other.serviceId !== null && other.serviceId === claim.serviceId) continue;
    if (other.serviceId === null && other.environmentId === claim.environmentId && other.serviceName === claim.serviceName) continue;
    const theirs = resolveIngress(other.ingress);
    for (const [n, host] of mine.hosts.entries()) {
      if (!theirs.hosts.includes(host)) continue;
      if (other.environmentId !== claim.environmentId) {
        return {
          field: `ingress.hosts.${n}`,
          message: `ingress host '${host}' is served by a service of another environment${other.environmentName ? ` (${other.environmentName})` : ''}: one environment never takes another's traffic`,
        };
      }
      if (theirs.path === mine.path) {
        return { field: `ingress.hosts.${n}`, message: `ingress host '${host}' with path '${mine.path}' is already served by service ${other.serviceName} of this environment` };
      }
    }
  }
  return null;
}
