// What one look at a server produces for monitoring: the server check and the checks of its
// containers stored as health logs, their alert states stepped (alerts sent), and the server's
// Ready/Degraded conditions recomputed from them.
import type { Services } from '../services.js';
import type { HealthResult } from '../servers/health-result.js';
import type { ContainerLook } from '../servers/container-states.js';
import type { ServerRow } from '../store/repositories/servers.js';
import { sameConditions } from '../model/conditions.js';
import { alertPolicy } from './alert-policy.js';
import type { CheckResult } from './check-result.js';
import { recordCheck } from './record-check.js';
import { serverConditions } from './server-conditions.js';
import { serviceChecks, type CheckToggles } from './service-checks.js';

/** Pure: the server check from the live health result. */
export function serverCheck(server: ServerRow, h: HealthResult): CheckResult {
  return {
    environmentId: server.environmentId, kind: 'server', checkKey: `server:${server.id}`, serverId: server.id, deploymentId: null,
    target: `server ${server.name} (${server.hostname})`, status: h.status === 'healthy' ? 'ok' : 'failed', latencyMs: h.durationMs,
    error: h.status === 'healthy' ? null : h.message, details: h.status === 'healthy' ? { message: h.message } : {},
  };
}

export interface ServerChecksOptions {
  /** The sweep's look at the containers; without it only the server check is recorded. */
  look?: ContainerLook;
  timeoutMs: number;
}

export async function recordServerChecks(s: Services, server: ServerRow, h: HealthResult, o: ServerChecksOptions): Promise<CheckResult[]> {
  const policy = await alertPolicy(s.notificationTypeSettings);
  const results = [serverCheck(server, h)];
  if (o.look && h.status === 'healthy') {
    const toggles = await s.settings.get<CheckToggles>(server.environmentId, 'monitoring');
    results.push(...await serviceChecks(s, server, o.look, toggles, o.timeoutMs));
  }
  for (const r of results) await recordCheck(s, r, policy);
  const previous = server.conditions ?? [];
  const next = serverConditions(previous, h, await s.alertStates.downOfServer(server.id));
  // observedGeneration says which spec this look saw: written when it moved, even if nothing else did
  if (!sameConditions(previous, next) || server.observedGeneration !== server.generation) await s.servers.recordConditions(server.id, next, server.generation);
  return results;
}
