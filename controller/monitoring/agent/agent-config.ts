// What an agent is told to do: how often to sample and what. Answered by GET /api/agent/config
// and again with every ingest, so a changed toggle applies at the agent's next sample.
import type { Services } from '../../services.js';
import type { AgentIdentity } from '../../store/repositories/server-agents.js';
import { AGENT_VERSION } from '../../version.js';
import { collectedMetrics, type MonitoringToggles } from './collected-metrics.js';

export interface AgentConfig {
  serverId: string;
  /** The server's metrics mode: anything but `agent` means the controller refuses its samples. */
  metricsMode: string;
  intervalSec: number;
  collect: string[];
  /** The version the controller ships: an agent older than this is updated by installing again. */
  latestVersion: string;
}

export async function agentConfigOf(s: Services, agent: AgentIdentity): Promise<AgentConfig> {
  const toggles = await s.settings.get<MonitoringToggles>(agent.environmentId, 'monitoring');
  return {
    serverId: agent.serverId,
    metricsMode: agent.metricsMode,
    intervalSec: s.config.scheduler.metricsSec,
    collect: collectedMetrics(toggles),
    latestVersion: AGENT_VERSION,
  };
}
