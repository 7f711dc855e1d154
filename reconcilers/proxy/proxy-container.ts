// The proxy container of a server as data (Kamal-style argv, controller/hosts/commands/): Caddy
// named stevedore-proxy, with the ownership labels, publishing the environment's ingress ports on
// Caddy's 80/443, on the default bridge (and joined to the environment networks of the services
// it routes). `caddy run --resume` starts from the config it last saved (a restarted proxy keeps
// routing before the reconciler looks again); its admin API listens on localhost inside the
// container only and is reached with `docker exec`, never from a network.
import { createHash } from 'node:crypto';
import type { Argv } from '../../controller/hosts/shell-quote.js';
import { run } from '../../controller/hosts/commands/docker.js';
import { LABEL } from '../../controller/model/desired-container.js';
import { ADMIN_LISTEN, CONTAINER_HTTP_PORT, CONTAINER_HTTPS_PORT } from './caddy-config.js';
import { DEFAULT_NETWORK } from './route-table.js';

export const PROXY_CONTAINER = 'stevedore-proxy';
/** Marks the proxy among a server's managed containers. */
export const PROXY_LABEL = 'stevedore.proxy';
export const PROXY_SPEC_LABEL = 'stevedore.proxy-spec';

export interface ProxySpec { image: string; httpPort: number; httpsPort: number; environmentId: string }

/** What the container is made from, hashed: a different image or port recreates it. */
export const proxySpecHash = (p: ProxySpec) => createHash('sha256').update(JSON.stringify([p.image, p.httpPort, p.httpsPort, p.environmentId])).digest('hex').slice(0, 16);

export function proxyLabels(p: ProxySpec): Record<string, string> {
  return { [LABEL.managed]: 'true', [LABEL.environment]: p.environmentId, [PROXY_LABEL]: 'true', [PROXY_SPEC_LABEL]: proxySpecHash(p) };
}

export function runProxy(p: ProxySpec): Argv {
  return run({
    name: PROXY_CONTAINER, image: p.image, labels: proxyLabels(p), restart: 'unless-stopped', network: DEFAULT_NETWORK,
    publish: [`${p.httpPort}:${CONTAINER_HTTP_PORT}`, `${p.httpsPort}:${CONTAINER_HTTPS_PORT}`],
    command: ['caddy', 'run', '--resume'],
  });
}

const adminUrl = (path: string) => `http://${ADMIN_LISTEN}${path}`;

/** The live config as JSON (busybox wget: in the official image and the fleet's). */
export const readConfig = (): Argv => ['docker', 'exec', PROXY_CONTAINER, 'wget', '-q', '-O', '-', adminUrl('/config/')];

/** Loads the config given on stdin: Caddy swaps it in gracefully (requests in flight finish on the old one). */
export const loadConfig = (): Argv => ['docker', 'exec', '-i', PROXY_CONTAINER, 'wget', '-q', '-O', '-',
  '--header', 'Content-Type: application/json', '--post-file', '/dev/stdin', adminUrl('/load')];
