// Server health: a live check through services.hosts (ssh: a command + the Docker API `version`; socket
// mode: the local Docker socket answers), bounded by a deadline, then stored on the row. A
// transition publishes health.changed. Every result is also a monitoring check (health log, alert
// state): health.failed / health.recovered come from its alert state machine, never from here.
import type { Services } from '../services.js';
import { HostError } from '../hosts/errors.js';
import type { HealthStatus, ServerRow } from '../store/repositories/servers.js';
import type { HealthResult } from './health-result.js';
import { refreshContainerStates } from './container-states.js';
import { recordServerChecks } from '../monitoring/record-server-checks.js';
import type { CheckResult } from '../monitoring/check-result.js';

export const DEFAULT_HEALTH_TIMEOUT_MS = 10_000;

class HealthTimeout extends Error {}
class DockerDown extends Error {}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HealthTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** Messages are for people and hold no secret: host errors name the server id and the reason. */
function describe(err: unknown): string {
  if (err instanceof HealthTimeout) return `health check timed out: ${err.message}`;
  if (err instanceof DockerDown) return `docker is not answering: ${err.message}`;
  if (err instanceof HostError) {
    switch (err.code) {
      case 'HOST_KEY_MISMATCH': return `refused: ${err.message}. If the server was rebuilt on purpose, check and pin its new key (POST /api/servers/{id}/host-key/scan, then …/host-key/accept)`;
      case 'COMMAND_FAILED': return `docker is not answering: ${err.message}`;
      default: return err.message;
    }
  }
  return err instanceof Error ? err.message : String(err);
}

/** The live check alone (does not store anything). Never throws. */
export async function checkServer(s: Services, server: ServerRow, timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS): Promise<HealthResult> {
  const started = performance.now();
  const done = (status: HealthResult['status'], message: string): HealthResult =>
    ({ status, message, durationMs: Math.round(performance.now() - started) });
  try {
    if (server.dockerMode === 'socket') {
      const docker = await s.hosts.docker(server.id);
      const v = await withDeadline(docker.version().catch((err: Error) => { throw new DockerDown(err.message); }), timeoutMs);
      return done('healthy', `docker ${v.Version} on ${server.dockerSocketPath ?? '/var/run/docker.sock'}`);
    }
    // both over the one pooled connection: a command channel proves ssh exec works (and brings
    // load and disk as extra facts, whatever their exit code), the Docker API answers `version`
    // through a streamlocal channel to the remote socket (no docker CLI process to start)
    const facts = s.hosts.exec(server.id, ['sh', '-c', 'cat /proc/loadavg; df -P / | tail -n 1'], { timeoutMs, check: false });
    const version = s.hosts.docker(server.id).then((docker) => docker.version().catch((err: Error) => {
      throw new DockerDown(err.message);
    }));
    const [factsOut, v] = await withDeadline(Promise.all([facts, version]), timeoutMs);
    const extra = summarizeFacts(factsOut.stdout);
    const versionText = v.Version;
    return done('healthy', `docker ${versionText}${extra ? `; ${extra}` : ''}`);
  } catch (err) {
    return done('unhealthy', describe(err).slice(0, 1000));
  }
}

function summarizeFacts(out: string): string {
  const [loadLine, dfLine] = out.trim().split('\n');
  const parts: string[] = [];
  const load = loadLine?.split(/\s+/)[0];
  if (load && /^[0-9.]+$/.test(load)) parts.push(`load ${load}`);
  const used = dfLine?.split(/\s+/)[4];
  if (used && /^\d+%$/.test(used)) parts.push(`disk / ${used} used`);
  return parts.join(', ');
}

/** Stores the result and publishes health.changed on a transition; answers the updated row and the previous status. */
export async function recordHealth(s: Services, serverId: string, result: HealthResult):
  Promise<{ server: ServerRow; previous: HealthStatus } | null> {
  return s.servers.recordHealth(serverId, result, async (server, previous, trx) => {
    const data = { serverId, serverName: server.name, status: result.status, previousStatus: previous, message: result.message,
      checkedAt: server.healthCheckedAt };
    if (previous !== result.status) await s.events.publish('health.changed', server.environmentId, data, trx);
    return { server, previous };
  });
}

/** Live check + store + events + the server's monitoring check, for one server (POST /api/servers/{id}/health). */
export async function refreshHealth(s: Services, server: ServerRow, timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS) {
  const result = await checkServer(s, server, timeoutMs);
  const recorded = await recordHealth(s, server.id, result);
  if (recorded) await recordServerChecks(s, recorded.server, result, { timeoutMs });
  return { result, server: recorded?.server ?? null };
}

/** Runs fn over items with at most `limit` in flight; one slow item never holds back the others. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

export interface SweepOptions {
  concurrency?: number;
  timeoutMs?: number;
  /** Called as each server's check is stored (tests observe the order). */
  onChecked?: (server: ServerRow, result: HealthResult) => void;
  environmentId?: string;
}

/** One pass of the health reconciler over every server (or one environment's). */
export async function sweepHealth(s: Services, opts: SweepOptions = {}): Promise<Array<{ server: ServerRow; result: HealthResult; checks: CheckResult[] }>> {
  const servers = opts.environmentId ? await s.servers.listByEnvironment(opts.environmentId) : await s.servers.listAll();
  // a full pass knows every server: close connections of servers deleted meanwhile
  if (!opts.environmentId) s.hosts.retain(servers.map((r) => r.id));
  const timeoutMs = opts.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS;
  return mapLimit(servers, opts.concurrency ?? 8, async (server) => {
    const result = await checkServer(s, server, timeoutMs);
    const recorded = await recordHealth(s, server.id, result).catch((err: unknown) => {
      s.logger.warn('health check could not be stored', { serverId: server.id, error: String(err) });
      return null;
    });
    // what health-status shows of the server's containers comes from this same look, and so do
    // the monitoring checks of its containers and their ports
    const look = await refreshContainerStates(s, server.id, result.status === 'healthy').catch((err: unknown) => {
      s.logger.warn('container states could not be refreshed', { serverId: server.id, error: String(err) });
      return undefined;
    });
    const checks = recorded
      ? await recordServerChecks(s, recorded.server, result, { look, timeoutMs }).catch((err: unknown) => {
        s.logger.warn('monitoring checks could not be recorded', { serverId: server.id, error: String(err) });
        return [];
      })
      : [];
    opts.onChecked?.(server, result);
    return { server, result, checks };
  });
}
