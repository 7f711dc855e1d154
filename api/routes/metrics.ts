// Metrics reads: the latest sample of a server, the container stats of a service's deployments,
// an environment's columnar history, its monitoring summary, the overview of every visible
// environment, and a live stream of an environment's samples (SSE).
import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { serverMetricNames } from '../../controller/monitoring/server-sample.js';
import { columnarJson, isoOfWholeSeconds, stepFor } from '../../controller/monitoring/history.js';
import { latestOf, staleAfterMs, summarize, toSampleRead } from '../../controller/monitoring/summary.js';
import { METRICS_EVENT } from '../../controller/monitoring/metrics-worker.js';
import { result, route } from '../http/route.js';
import { openSse, SSE_ANSWER } from '../http/sse.js';
import { arrayOf, bool, enumOf, int, nullable, object, str, timestamp, uuid, type Schema } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';

const num: Schema = { type: 'number' };
const containerRead = object({ name: str(), cpuPercent: num, memoryUsedBytes: num, memoryLimitBytes: num });
const sampleRead = object({
  at: timestamp, source: enumOf('ssh', 'agent'),
  ...Object.fromEntries(serverMetricNames.map((m) => [m, num])),
  containers: arrayOf(containerRead),
}, ['at', 'source']);
const serverMetricsRead = object({ serverId: uuid, metricsMode: str(), stale: bool, sample: nullable(sampleRead) });
const serverSummary = object({
  serverId: uuid, name: str(), metricsMode: str(), healthStatus: str(), stale: bool, sample: nullable(sampleRead),
});
const totals = object({
  servers: int(0), reporting: int(0), cpuPercent: nullable(num), memoryUsedBytes: nullable(num), memoryTotalBytes: nullable(num),
  diskUsedBytes: nullable(num), diskTotalBytes: nullable(num), containers: int(0),
});
const historyRead = object({
  from: timestamp, to: timestamp, stepSec: int(1), timestamps: arrayOf(timestamp),
  series: object(Object.fromEntries(serverMetricNames.map((m) => [m, arrayOf(nullable(num))]))),
});
const deploymentStats = object({
  deploymentId: uuid, serverId: uuid, serverName: str(), containerName: str(), at: nullable(timestamp),
  cpuPercent: nullable(num), memoryUsedBytes: nullable(num), memoryLimitBytes: nullable(num),
});

const series = arrayOf(nullable(num));
const containerHistoryRead = object({
  from: timestamp, to: timestamp, stepSec: int(1), timestamps: arrayOf(timestamp),
  containers: arrayOf(object({
    deploymentId: uuid, serverId: uuid, serverName: str(), containerName: str(), cpuPercent: series, memoryUsedBytes: series,
  })),
});

const HOUR_MS = 3_600_000;

/** The range of a history query: `to` defaults to now, `from` to an hour before it. */
function rangeOf(query: { from?: string; to?: string }) {
  const to = query.to ? new Date(query.to) : new Date();
  const from = query.from ? new Date(query.from) : new Date(to.getTime() - HOUR_MS);
  if (!(from < to)) throw validationError('from must be before to', 'from');
  return { from, to };
}

export default function metricsRoutes(s: Services) {
  const loadServer = rowOf(s.servers, 'Server');
  const loadService = rowOf(s.services, 'Service');
  const env = environmentOf(s);

  return [
    route({
      method: 'GET', path: '/api/servers/{id}/metrics', operationId: 'getServerMetrics', tag: 'monitoring', access: 'viewer', load: loadServer,
      summary: 'The newest sample of the server (metrics its environment collects; a metric not collected is absent) with its containers',
      response: serverMetricsRead,
      async handler(_ctx, { resource }) {
        const sample = (await latestOf(s, [resource.id])).get(resource.id);
        return {
          serverId: resource.id, metricsMode: resource.metricsMode,
          stale: !sample || Date.now() - sample.at.getTime() > staleAfterMs(s), sample: sample ? toSampleRead(sample) : null,
        };
      },
    }),

    route({
      method: 'GET', path: '/api/services/{id}/metrics', operationId: 'getServiceMetrics', tag: 'monitoring', access: 'viewer', load: loadService,
      summary: "CPU and memory of each deployment's container, from its server's newest sample (null until one has it)",
      response: object({ serviceId: uuid, items: arrayOf(deploymentStats) }),
      async handler(_ctx, { resource }) {
        const deployments = await s.deployments.listByService(resource.id);
        const serverIds = [...new Set(deployments.map((d) => d.serverId))];
        const [latest, servers] = await Promise.all([latestOf(s, serverIds), Promise.all(serverIds.map((id) => s.servers.findById(id)))]);
        const nameOf = new Map(servers.filter((x) => !!x).map((x) => [x!.id, x!.name]));
        const items = deployments.map((d) => {
          const sample = latest.get(d.serverId);
          const c = sample?.containers?.find((x) => x.name === d.containerName);
          return {
            deploymentId: d.id, serverId: d.serverId, serverName: nameOf.get(d.serverId) ?? '', containerName: d.containerName,
            at: c ? sample!.at.toISOString() : null, cpuPercent: c?.cpuPercent ?? null,
            memoryUsedBytes: c?.memoryUsedBytes ?? null, memoryLimitBytes: c?.memoryLimitBytes ?? null,
          };
        });
        return { serviceId: resource.id, items };
      },
    }),

    route<unknown, { from?: string; to?: string; stepSec?: number }>({
      method: 'GET', path: '/api/services/{id}/metrics/history', operationId: 'getServiceMetricsHistory', tag: 'monitoring',
      access: 'viewer', load: loadService,
      summary: "CPU and memory of each deployment's container over time, from its server's samples: one timestamps array and, per "
        + 'container, series aligned with it (null where no sample had the container); from defaults to one hour before to (default '
        + 'now), buckets of stepSec as the environment history',
      query: { from: timestamp, to: timestamp, stepSec: int(1, 86_400) },
      response: containerHistoryRead,
      async handler(_ctx, { resource, query }) {
        const { from, to } = rangeOf(query);
        const stepSec = stepFor(from, to, query.stepSec);
        const deployments = await s.deployments.listByService(resource.id);
        const serverIds = [...new Set(deployments.map((d) => d.serverId))];
        const [rows, servers] = await Promise.all([
          s.serverSamples.containerHistory({ serverIds, from, to, stepSec, names: [...new Set(deployments.map((d) => d.containerName))] }),
          Promise.all(serverIds.map((id) => s.servers.findById(id))),
        ]);
        const nameOf = new Map(servers.filter((x) => !!x).map((x) => [x!.id, x!.name]));
        const buckets = [...new Set(rows.map((r) => r.bucket))].sort((a, b) => a - b);
        const at = new Map(buckets.map((b, i) => [b, i]));
        return {
          from: from.toISOString(), to: to.toISOString(), stepSec, timestamps: isoOfWholeSeconds(buckets),
          containers: deployments.map((d) => {
            const cpu: Array<number | null> = buckets.map(() => null);
            const mem: Array<number | null> = buckets.map(() => null);
            for (const r of rows) {
              if (r.serverId !== d.serverId || r.name !== d.containerName) continue;
              cpu[at.get(r.bucket)!] = r.cpuPercent;
              mem[at.get(r.bucket)!] = r.memoryUsedBytes;
            }
            return { deploymentId: d.id, serverId: d.serverId, serverName: nameOf.get(d.serverId) ?? '', containerName: d.containerName, cpuPercent: cpu, memoryUsedBytes: mem };
          }),
        };
      },
    }),

    route<unknown, { from?: string; to?: string; serverId?: string; stepSec?: number }>({
      method: 'GET', path: '/api/environments/{envId}/metrics/history', operationId: 'getMetricsHistory', tag: 'monitoring',
      access: 'viewer', load: env,
      summary: 'Columnar history {from, to, stepSec, timestamps, series: {cpuPercent: [], …}} of one server (serverId) or of the '
        + 'environment (mean of percentages and load, sum of bytes and counts); from defaults to one hour before to (default now); '
        + 'buckets of stepSec (default about 720 points; at most 10080 points)',
      query: { from: timestamp, to: timestamp, serverId: uuid, stepSec: int(1, 86_400) },
      response: historyRead,
      async handler(_ctx, { resource, query }) {
        const { from, to } = rangeOf(query);
        const servers = await s.servers.listByEnvironment(resource.id);
        let serverIds = servers.map((r) => r.id);
        if (query.serverId) {
          if (!serverIds.includes(query.serverId)) throw notFound('Server');
          serverIds = [query.serverId];
        }
        const stepSec = stepFor(from, to, query.stepSec);
        const columns = await s.serverSamples.history({ serverIds, from, to, stepSec });
        return result(200, columnarJson(from, to, stepSec, columns), { 'content-type': 'application/json; charset=utf-8' });
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/monitoring/summary', operationId: 'getMonitoringSummary', tag: 'monitoring',
      access: 'viewer', load: env,
      summary: 'Each server of the environment with its newest sample and whether it is stale, and the totals of the fresh ones',
      response: object({ environmentId: uuid, servers: arrayOf(serverSummary), totals }),
      async handler(_ctx, { resource }) {
        const servers = await s.servers.listByEnvironment(resource.id);
        const sum = summarize(servers, await latestOf(s, servers.map((r) => r.id)), staleAfterMs(s));
        return { environmentId: resource.id, ...sum };
      },
    }),

    route({
      method: 'GET', path: '/api/monitoring/overview', operationId: 'getMonitoringOverview', tag: 'monitoring', access: 'viewer', envExempt: true,
      summary: 'Totals of every environment the caller may see (an environment-limited token sees its environments only)',
      response: object({ items: arrayOf(object({ environmentId: uuid, name: str(), totals })) }),
      async handler(ctx) {
        const envs = await s.environments.names(ctx.state.actor!.environmentIds);
        const wanted = new Set(envs.map((e) => e.id));
        const servers = (await s.servers.listAll()).filter((r) => wanted.has(r.environmentId));
        const latest = await latestOf(s, servers.map((r) => r.id));
        const staleMs = staleAfterMs(s);
        return {
          items: envs.map((e) => ({
            environmentId: e.id, name: e.name,
            totals: summarize(servers.filter((r) => r.environmentId === e.id), latest, staleMs).totals,
          })),
        };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/metrics/stream', operationId: 'streamMetrics', tag: 'monitoring', access: 'viewer',
      load: env, ...SSE_ANSWER,
      summary: "Server-sent events `metrics`: {samples: [{serverId, at, source, …metrics}]}, the environment's newest samples on "
        + 'connect, then each collection as it is stored; a comment heartbeat every 15 s',
      async handler(ctx, { resource }) {
        const sse = openSse(ctx);
        const sendLatest = async (serverIds: string[], id?: number) => {
          const latest = await latestOf(s, serverIds);
          const samples = [...latest.values()].map((x) => ({ serverId: x.serverId, ...toSampleRead(x) }));
          if (samples.length) sse.send('metrics', { samples }, id);
        };
        // one read at a time, in order: a slow read never lets an older cycle overtake a newer one
        let chain = Promise.resolve();
        const unsubscribe = s.events.subscribe((e) => {
          if (e.type !== METRICS_EVENT || e.environmentId !== resource.id) return;
          const ids = Array.isArray(e.data.serverIds) ? (e.data.serverIds as string[]) : [];
          chain = chain.then(() => sendLatest(ids, e.id)).catch((err: unknown) => {
            s.logger.debug('metrics stream read failed', { environmentId: resource.id, error: String(err) });
          });
        });
        void sse.closed.then(unsubscribe);
        chain = chain.then(async () => sendLatest((await s.servers.listByEnvironment(resource.id)).map((r) => r.id))).catch(() => undefined);
        return undefined;
      },
    }),
  ];
}
