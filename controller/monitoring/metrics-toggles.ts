// Which metrics an environment collects (its `monitoring` settings) and which sections of the
// batched read they need.
import type { MetricsSection } from '../hosts/commands/metrics.js';

export interface MetricsToggles {
  collectCpu: boolean;
  collectMemory: boolean;
  collectSwap: boolean;
  collectDisk: boolean;
  collectLoad: boolean;
  collectFds: boolean;
  collectTcp: boolean;
  collectProcesses: boolean;
}

/** Settings as stored: a toggle that is not `false` is on (the defaults are all on). */
export function togglesOf(settings: Record<string, unknown> | undefined): MetricsToggles {
  const on = (k: keyof MetricsToggles) => settings?.[k] !== false;
  return {
    collectCpu: on('collectCpu'), collectMemory: on('collectMemory'), collectSwap: on('collectSwap'),
    collectDisk: on('collectDisk'), collectLoad: on('collectLoad'), collectFds: on('collectFds'),
    collectTcp: on('collectTcp'), collectProcesses: on('collectProcesses'),
  };
}

/** The sections to read; container stats come with cpu or memory (they are a container's cpu and memory). */
export function sectionsFor(t: MetricsToggles): MetricsSection[] {
  const out: MetricsSection[] = [];
  if (t.collectCpu) out.push('stat');
  if (t.collectMemory || t.collectSwap) out.push('meminfo');
  if (t.collectLoad) out.push('loadavg');
  if (t.collectFds) out.push('filenr');
  if (t.collectTcp) out.push('tcp', 'tcp6');
  if (t.collectProcesses) out.push('proc');
  if (t.collectDisk) out.push('df');
  if (t.collectCpu || t.collectMemory) out.push('dockerstats');
  return out;
}
