import type { Services } from '../../controller/services.js';
import { sweepHealth } from '../../controller/servers/health.js';
import { checkDatabases } from '../../controller/monitoring/database-checks.js';
import { certCheck, tcpCheck } from '../../controller/monitoring/port-checks.js';
import type { ServerRow } from '../../controller/store/repositories/servers.js';
import type { CheckKind, HealthLogFilter, HealthLogRow } from '../../controller/store/repositories/health-logs.js';
import type { AlertStateRow } from '../../controller/store/repositories/alert-states.js';
import type { EnvironmentRow } from '../../controller/store/repositories/environments.js';
import { route } from '../http/route.js';
import { bool, enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid, arrayOf } from '../http/schema.js';
import { environmentOf, rowOf, sshOnly } from './loaders.js';

const kind = enumOf('server', 'container', 'tcp', 'cert', 'database');
const checkStatus = enumOf('ok', 'warning', 'failed');
const healthLogRead = object({
  id: str(), environmentId: uuid, kind, checkKey: str(), serverId: nullable(uuid), deploymentId: nullable(uuid), target: str(),
  status: checkStatus, latencyMs: int(0), error: nullable(str()), details: { type: 'object' }, checkedAt: timestamp,
});
const checkRead = object({
  checkKey: str(), environmentId: uuid, kind, serverId: nullable(uuid), deploymentId: nullable(uuid), target: str(),
  status: enumOf('up', 'down'), failures: int(0), successes: int(0), reminders: int(0), downSince: nullableTimestamp,
  lastNotifiedAt: nullableTimestamp, lastResult: checkStatus, lastError: nullable(str()), lastCheckedAt: timestamp,
});
const portCheckRead = object({ status: checkStatus, latencyMs: int(0), error: nullable(str()), details: { type: 'object' } });

const toLog = (r: HealthLogRow) => ({ ...r, id: String(r.id) });
const toCheck = (r: AlertStateRow) => r;

/**
 * Monitoring checks: their results (health logs), the alert state of each check, an immediate
 * pass over an environment, and one-off SSH and connection tests of a server.
 */
export default function healthCheckRoutes(s: Services) {
  const env = environmentOf(s);
  const load = rowOf(s.servers, 'Server');
  return [
    route<unknown, HealthLogFilter & { limit: number; offset: number }, EnvironmentRow>({
      method: 'GET', path: '/api/environments/{envId}/health-logs', operationId: 'listHealthLogs', tag: 'monitoring', access: 'viewer',
      load: env, summary: 'Every health check result of the environment (server, container, tcp, cert) with latency and error, newest first',
      query: { ...paginationQuery, kind, status: checkStatus, serverId: uuid, deploymentId: uuid, checkKey: str({ maxLength: 200 }) },
      response: listOf(healthLogRead),
      async handler(_ctx, { resource, query }) {
        const page = await s.healthLogs.pageOf(resource.id, query, query);
        return { ...page, items: page.items.map(toLog) };
      },
    }),

    route<unknown, { status?: 'up' | 'down'; kind?: CheckKind; limit: number; offset: number }, EnvironmentRow>({
      method: 'GET', path: '/api/environments/{envId}/health-checks', operationId: 'listHealthChecks', tag: 'monitoring', access: 'viewer',
      load: env, summary: 'Each check of the environment with its alert state: up or down (after the health.failed bounce threshold), '
        + 'consecutive failures and successes, reminders sent, the last result',
      query: { ...paginationQuery, status: enumOf('up', 'down'), kind }, response: listOf(checkRead),
      async handler(_ctx, { resource, query }) {
        const page = await s.alertStates.pageOf(resource.id, query, query);
        return { ...page, items: page.items.map(toCheck) };
      },
    }),

    route<{ timeoutMs?: number }, unknown, EnvironmentRow>({
      method: 'POST', path: '/api/environments/{envId}/health-checks/run', operationId: 'runHealthChecks', tag: 'monitoring',
      access: 'operator', load: env,
      summary: 'Run every check of the environment now (the same pass as the background sweep: servers, containers, with the '
        + 'monitoring toggles tcp and cert checks, and databases with monitoring on); results are stored, alert states stepped and alerts sent as usual',
      body: object({ timeoutMs: int(500, 60_000) }),
      response: object({ checkedAt: timestamp, servers: int(0), failed: int(0), items: arrayOf(object({
        kind, checkKey: str(), serverId: nullable(uuid), deploymentId: nullable(uuid), target: str(), status: checkStatus,
        latencyMs: int(0), error: nullable(str()), details: { type: 'object' },
      })) }),
      async handler(ctx, { resource, body }) {
        const checkedAt = new Date().toISOString();
        const done = await sweepHealth(s, { environmentId: resource.id, timeoutMs: body.timeoutMs ?? 10_000 });
        const databases = await checkDatabases(s, resource.id);
        const items = [...done.flatMap((d) => d.checks), ...databases].map(({ environmentId: _e, ...c }) => c);
        ctx.state.audit = { environmentId: resource.id, details: { servers: done.length, checks: items.length } };
        return { checkedAt, servers: done.length, failed: items.filter((i) => i.status === 'failed').length, items };
      },
    }),

    route<{ timeoutMs?: number }, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/ssh-test', operationId: 'testServerSsh', tag: 'monitoring', access: 'operator', load,
      summary: 'Run `true` over the server\'s SSH connection within timeoutMs (default 10000): whether it answers, how long it took, '
        + 'whether a new connection was opened, and the pinned host key. Stores nothing. 409 for socket-mode servers',
      body: object({ timeoutMs: int(500, 60_000) }), errors: [409],
      response: object({ serverId: uuid, ok: bool, latencyMs: int(0), newConnection: bool, hostKeyFingerprint: nullable(str()), message: str() }),
      async handler(ctx, { resource, body }) {
        sshOnly(resource);
        const before = s.hosts.pool.status(resource.id)?.connects ?? 0;
        const started = performance.now();
        let ok = true;
        let message = 'ssh answered';
        try {
          await s.hosts.exec(resource.id, ['true'], { timeoutMs: body.timeoutMs ?? 10_000 });
        } catch (err) {
          ok = false;
          message = (err as Error).message.slice(0, 500);
        }
        const latencyMs = Math.round(performance.now() - started);
        const after = s.hosts.pool.status(resource.id)?.connects ?? 0;
        const fresh = await s.servers.findById(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { ok, latencyMs } };
        return { serverId: resource.id, ok, latencyMs, newConnection: after > before, hostKeyFingerprint: fresh?.hostKeyFingerprint ?? null, message };
      },
    }),

    route<unknown, unknown, ServerRow>({
      method: 'GET', path: '/api/servers/{id}/ssh-status', operationId: 'getServerSshStatus', tag: 'monitoring', access: 'viewer', load,
      summary: 'The SSH side of a server without touching it: whether the pooled connection is open now, how many times it was '
        + 'opened by this process, the pinned host key, and the server check\'s last result and alert state',
      response: object({
        serverId: uuid, dockerMode: str(), connectionOpen: bool, connects: int(0), hostKeyFingerprint: nullable(str()),
        health: object({ status: str(), checkedAt: nullableTimestamp, message: nullable(str()) }), check: nullable(checkRead),
      }),
      async handler(_ctx, { resource }) {
        const pool = resource.dockerMode === 'ssh' ? s.hosts.pool.status(resource.id) : null;
        const check = (await s.alertStates.find(`server:${resource.id}`)) ?? null;
        return {
          serverId: resource.id, dockerMode: resource.dockerMode, connectionOpen: pool?.open ?? false, connects: pool?.connects ?? 0,
          hostKeyFingerprint: resource.hostKeyFingerprint,
          health: { status: resource.healthStatus, checkedAt: resource.healthCheckedAt, message: resource.healthMessage }, check,
        };
      },
    }),

    route<{ host: string; port: number; tls: boolean; timeoutMs?: number }, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/connection-test', operationId: 'testServerConnection', tag: 'monitoring',
      access: 'operator', load,
      summary: 'A TCP connect to host:port made from the server (host defaults to 127.0.0.1: ports published on the server), and with '
        + 'tls the certificate it presents (days to expiry; null when the port does not speak TLS). Stores nothing',
      body: object({
        host: str({ pattern: '^[A-Za-z0-9.:_-]{1,253}$', default: '127.0.0.1' }), port: int(1, 65535), tls: { type: 'boolean', default: false },
        timeoutMs: int(500, 60_000),
      }, ['port']),
      response: object({ serverId: uuid, host: str(), port: int(1), tcp: portCheckRead, cert: nullable(portCheckRead) }),
      async handler(ctx, { resource, body }) {
        const timeoutMs = body.timeoutMs ?? 10_000;
        const tcp = await tcpCheck(s, resource.id, body.host, body.port, timeoutMs);
        const cert = body.tls && tcp.status === 'ok' ? await certCheck(s, resource.id, body.host, body.port, timeoutMs) : null;
        ctx.state.audit = { environmentId: resource.environmentId, details: { host: body.host, port: body.port, status: tcp.status } };
        return { serverId: resource.id, host: body.host, port: body.port, tcp, cert };
      },
    }),
  ];
}
