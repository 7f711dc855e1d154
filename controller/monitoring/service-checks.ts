// The checks of a reachable server's deployed containers, from the one `docker ps` look the health
// sweep already made (servers/container-states.ts): the container's state and Docker health, and
// with the environment's collectTcpChecks / collectCertChecks a TCP connect and a TLS certificate
// check of every TCP port it publishes, made from the server.
import type Docker from 'dockerode';
import type { Services } from '../services.js';
import type { ContainerLook } from '../servers/container-states.js';
import type { ServerRow } from '../store/repositories/servers.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import type { CheckResult } from './check-result.js';
import { certCheck, tcpCheck } from './port-checks.js';

export interface CheckToggles { collectTcpChecks: boolean; collectCertChecks: boolean }

/** Pure: the container check of one deployment from Docker's summary (undefined: no such container). */
export function containerCheck(server: ServerRow, d: DeploymentRow, c: Docker.ContainerInfo | undefined, latencyMs: number): CheckResult {
  const base = {
    environmentId: d.environmentId, kind: 'container' as const, checkKey: `container:${d.id}`, serverId: server.id, deploymentId: d.id,
    target: `container ${d.containerName} on ${server.name}`, latencyMs, details: { state: c?.State ?? 'missing', status: c?.Status ?? null },
  };
  if (!c) return { ...base, status: 'failed', error: 'the container does not exist' };
  if (c.State !== 'running') return { ...base, status: 'failed', error: `the container is ${c.State} (${c.Status})` };
  if (/\(unhealthy\)/.test(c.Status)) return { ...base, status: 'failed', error: 'Docker reports the container unhealthy' };
  if (/\(health: starting\)/.test(c.Status)) return { ...base, status: 'warning', error: 'the container health check is starting' };
  return { ...base, status: 'ok', error: null };
}

/** The TCP ports a container publishes on the server, as host:port to connect to from there. */
export function publishedTcpPorts(c: Docker.ContainerInfo): Array<{ host: string; port: number }> {
  const seen = new Map<string, { host: string; port: number }>();
  for (const p of c.Ports ?? []) {
    if (p.Type !== 'tcp' || !p.PublicPort) continue;
    const host = !p.IP || p.IP === '0.0.0.0' || p.IP === '::' ? '127.0.0.1' : p.IP;
    seen.set(`${host}:${p.PublicPort}`, { host, port: p.PublicPort });
  }
  return [...seen.values()];
}

/** Every check of the server's deployments; nothing when the server could not be asked (unknown is not failed). */
export async function serviceChecks(s: Services, server: ServerRow, look: ContainerLook, toggles: CheckToggles, timeoutMs: number):
  Promise<CheckResult[]> {
  if (!look.containers) return [];
  const out: CheckResult[] = [];
  for (const d of look.deployments) {
    const c = look.containers.get(d.containerName);
    out.push(containerCheck(server, d, c, look.listedInMs));
    if (!c || c.State !== 'running') continue;
    for (const { host, port } of publishedTcpPorts(c)) {
      const where = `${d.containerName} on ${server.name} ${host}:${port}`;
      const common = { environmentId: d.environmentId, serverId: server.id, deploymentId: d.id };
      if (toggles.collectTcpChecks) {
        const r = await tcpCheck(s, server.id, host, port, timeoutMs);
        out.push({ ...common, kind: 'tcp', checkKey: `tcp:${d.id}:${port}`, target: `tcp ${where}`, ...r });
      }
      if (toggles.collectCertChecks) {
        const r = await certCheck(s, server.id, host, port, timeoutMs);
        if (r) out.push({ ...common, kind: 'cert', checkKey: `cert:${d.id}:${port}`, target: `certificate of ${where}`, ...r });
      }
    }
  }
  return out;
}
