// Monitoring summaries: the latest sample of each server of an environment, and the totals an
// overview card shows. A sample older than the staleness bound still shows (with `stale`) but
// does not count as reporting.
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';
import type { ServerSample } from './server-sample.js';

/** How far back the newest sample of a server is looked for. */
const LATEST_WINDOW_MS = 86_400_000;

export interface ServerSummary {
  serverId: string;
  name: string;
  metricsMode: ServerRow['metricsMode'];
  healthStatus: ServerRow['healthStatus'];
  stale: boolean;
  sample: SampleRead | null;
}

export type SampleRead = Omit<ServerSample, 'serverId' | 'at'> & { at: string };

export interface Totals {
  servers: number;
  /** Servers with a fresh sample. */
  reporting: number;
  /** Mean over reporting servers. */
  cpuPercent: number | null;
  memoryUsedBytes: number | null;
  memoryTotalBytes: number | null;
  diskUsedBytes: number | null;
  diskTotalBytes: number | null;
  containers: number;
}

export const toSampleRead = ({ serverId: _id, at, ...rest }: ServerSample): SampleRead => ({ ...rest, at: at.toISOString() });

/** A sample is stale after three missed cycles (at least five minutes). */
export const staleAfterMs = (s: Services) => Math.max(3 * s.config.scheduler.metricsSec, 300) * 1000;

export async function latestOf(s: Services, serverIds: string[], now = Date.now()): Promise<Map<string, ServerSample>> {
  const samples = await s.serverSamples.latest(serverIds, new Date(now - LATEST_WINDOW_MS));
  return new Map(samples.map((x) => [x.serverId, x]));
}

export function summarize(servers: ServerRow[], latest: Map<string, ServerSample>, staleMs: number, now = Date.now()): { servers: ServerSummary[]; totals: Totals } {
  const out = servers.map((r): ServerSummary => {
    const sample = latest.get(r.id);
    return {
      serverId: r.id, name: r.name, metricsMode: r.metricsMode, healthStatus: r.healthStatus,
      stale: !sample || now - sample.at.getTime() > staleMs, sample: sample ? toSampleRead(sample) : null,
    };
  });
  const fresh = servers.map((r) => latest.get(r.id)).filter((x, i): x is ServerSample => !!x && !out[i]!.stale);
  const sum = (k: keyof ServerSample) => {
    const vals = fresh.map((x) => x[k]).filter((v): v is number => typeof v === 'number');
    return vals.length ? vals.reduce((a, b) => a + b, 0) : null;
  };
  const cpus = fresh.filter((x) => x.cpuPercent !== undefined);
  return {
    servers: out,
    totals: {
      servers: servers.length, reporting: fresh.length,
      cpuPercent: cpus.length ? Math.round((sum('cpuPercent')! / cpus.length) * 100) / 100 : null,
      memoryUsedBytes: sum('memoryUsedBytes'), memoryTotalBytes: sum('memoryTotalBytes'),
      diskUsedBytes: sum('diskUsedBytes'), diskTotalBytes: sum('diskTotalBytes'),
      containers: fresh.reduce((n, x) => n + (x.containers?.length ?? 0), 0),
    },
  };
}
