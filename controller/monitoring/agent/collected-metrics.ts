// Which readings an agent sample keeps, by the environment's monitoring toggles. The agent is told
// the same list (its configuration), but the controller filters again: a toggle switched off
// between two samples, or an agent that sends more, never stores a metric the environment disabled.
import type { ServerSample } from '../server-sample.js';

export type MonitoringToggles = Record<string, boolean>;

/** Toggle -> the names the agent collects under it (the agent's `collect` list). */
const TOGGLE_OF: Array<[toggle: string, collect: string]> = [
  ['collectCpu', 'cpu'], ['collectMemory', 'memory'], ['collectSwap', 'swap'], ['collectDisk', 'disk'],
  ['collectLoad', 'load'], ['collectFds', 'fds'], ['collectTcp', 'tcp'], ['collectProcesses', 'processes'],
];

/** Sample fields under each collect name. */
const FIELDS: Record<string, Array<keyof ServerSample>> = {
  cpu: ['cpuPercent'], memory: ['memoryUsedBytes', 'memoryTotalBytes'], swap: ['swapUsedBytes', 'swapTotalBytes'],
  disk: ['diskUsedBytes', 'diskTotalBytes'], load: ['load1', 'load5', 'load15'], fds: ['openFds'],
  tcp: ['tcpConnections'], processes: ['processes'], containers: ['containers'],
};

/** The agent's collect list: every enabled metric, plus per-container stats when cpu or memory is on. */
export function collectedMetrics(toggles: MonitoringToggles): string[] {
  const names = TOGGLE_OF.filter(([t]) => toggles[t] !== false).map(([, c]) => c);
  if (names.includes('cpu') || names.includes('memory')) names.push('containers');
  return names;
}

/** The sample with only the readings of `collect`. */
export function keepCollected(sample: ServerSample, collect: string[]): ServerSample {
  const kept: ServerSample = { serverId: sample.serverId, at: sample.at, source: sample.source };
  for (const name of collect) {
    for (const field of FIELDS[name] ?? []) {
      if (sample[field] !== undefined) (kept as Record<string, unknown>)[field] = sample[field];
    }
  }
  return kept;
}
