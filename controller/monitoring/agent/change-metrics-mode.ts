// A server's metrics mode, changed for real: to `agent` installs the agent, away from `agent`
// removes it; between ssh and disabled only the mode changes. The same mode does nothing.
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';
import type { AgentStatus } from './agent-status.js';
import { installAgent, type InstallOptions, type InstallResult } from './install-agent.js';
import { uninstallAgent } from './remove-agent.js';

export async function changeMetricsMode(s: Services, server: ServerRow, mode: ServerRow['metricsMode'], install: () => InstallOptions):
  Promise<{ server: ServerRow; agent: InstallResult | AgentStatus | null }> {
  if (mode === server.metricsMode) return { server, agent: null };
  let agent: InstallResult | AgentStatus | null = null;
  if (mode === 'agent') agent = await installAgent(s, server, install());
  else if (server.metricsMode === 'agent') agent = await uninstallAgent(s, server, mode);
  const row = await s.servers.update(server.id, { metricsMode: mode, generation: server.generation + 1 });
  return { server: row!, agent };
}
