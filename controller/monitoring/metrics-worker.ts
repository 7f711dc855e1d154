// The scheduled side of metrics: every SCHEDULER_METRICS_SEC one replica (advisory lock) samples
// every server in `ssh` metrics mode (at most 16 at a time, each bounded by a deadline), stores
// the cycle in one insert and announces it per environment (`metrics.collected`, read by the
// live metrics stream). Every SCHEDULER_METRICS_RETENTION_SEC the partitions of the coming days
// are created, those past METRICS_RETENTION_DAYS dropped and finished days vacuumed. A server
// that cannot be reached only misses its sample; a database error skips the tick (the scheduler
// logs it).
import type { Services } from '../services.js';
import { mapLimit } from '../servers/health.js';
import { SshCollector } from './ssh-collector.js';
import { togglesOf, type MetricsToggles } from './metrics-toggles.js';
import type { ServerSample } from './server-sample.js';

export const METRICS_JOB = 'metrics.collect';
export const METRICS_PARTITIONS_JOB = 'metrics.partitions';
export const METRICS_EVENT = 'metrics.collected';
const DAY_MS = 86_400_000;
/** Partitions kept ready ahead of today, so no write waits on a CREATE TABLE. */
const DAYS_AHEAD = 3;

export interface CycleResult { servers: number; stored: number; failed: number }

export async function collectSshMetrics(s: Services, collector: SshCollector, timeoutMs: number): Promise<CycleResult> {
  const all = await s.servers.listAll();
  const servers = all.filter((r) => r.metricsMode === 'ssh');
  collector.retain(new Set(servers.map((r) => r.id)));
  const toggles = new Map<string, Promise<MetricsToggles>>();
  const togglesOfEnv = (envId: string) => {
    if (!toggles.has(envId)) toggles.set(envId, s.settings.getIfEnvironmentExists(envId, 'monitoring').then(togglesOf));
    return toggles.get(envId)!;
  };
  let failed = 0;
  const samples = (await mapLimit(servers, 16, async (server) => {
    try {
      return await collector.collect(server, await togglesOfEnv(server.environmentId), timeoutMs);
    } catch (err) {
      failed++;
      s.logger.debug('metrics collection failed', { serverId: server.id, error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  })).filter((x): x is ServerSample => x !== null);
  await s.serverSamples.insertServerSamples(samples);
  // one announcement per environment and cycle: the servers sampled now, and the agent-mode
  // servers (their posts arrive one by one; the stream reads their newest sample at this beat)
  const byEnv = new Map<string, string[]>();
  const sampled = new Set(samples.map((x) => x.serverId));
  for (const r of all) {
    if (!sampled.has(r.id) && r.metricsMode !== 'agent') continue;
    byEnv.set(r.environmentId, [...(byEnv.get(r.environmentId) ?? []), r.id]);
  }
  for (const [env, serverIds] of byEnv) await s.events.publish(METRICS_EVENT, env, { serverIds });
  return { servers: servers.length, stored: samples.length, failed };
}

/** Creates the partitions of today and the next days; drops those wholly older than the retention. */
export async function maintainPartitions(s: Services, now = new Date()): Promise<{ created: string[]; dropped: string[]; vacuumed: string[] }> {
  const created = await s.serverSamples.partitions.ensure(now, DAYS_AHEAD);
  const dropped = await s.serverSamples.partitions.dropBefore(new Date(now.getTime() - s.config.metricsRetentionDays * DAY_MS));
  // days that are over: their pages all-visible, so their history is read from the index alone
  const vacuumed = await s.serverSamples.partitions.vacuumPast(now);
  return { created, dropped, vacuumed };
}

export async function startMetricsWorker(s: Services): Promise<() => Promise<void>> {
  const intervalSec = s.config.scheduler.metricsSec;
  // a server's read must end well before the next cycle starts
  const timeoutMs = Math.min(30_000, Math.max(10_000, intervalSec * 500));
  const collector = new SshCollector(s.hosts);
  const partitions = async () => {
    const { created, dropped, vacuumed } = await maintainPartitions(s);
    if (created.length || dropped.length || vacuumed.length) s.logger.info('metrics partitions maintained', { created, dropped, vacuumed });
  };
  // at start-up too: the first cycle finds today's partition ready
  await s.scheduler.runOnce(METRICS_PARTITIONS_JOB, partitions);
  s.scheduler.every(METRICS_PARTITIONS_JOB, s.config.scheduler.metricsRetentionSec, partitions);
  s.scheduler.every(METRICS_JOB, intervalSec, async () => {
    const r = await collectSshMetrics(s, collector, timeoutMs);
    s.logger.debug('metrics cycle done', { ...r });
  });
  return async () => undefined;
}
