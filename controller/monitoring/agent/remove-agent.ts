// Removes the agent from a server: the script's `stop` (unit disabled and deleted, or the loop's
// process group killed), its directory deleted, the token forgotten (it stops working at once),
// and a metrics mode of `agent` turned to `disabled`. The answer is the status observed afterwards.
import { removeAgent } from '../../hosts/commands/agent.js';
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';
import { observeAgent, type AgentStatus } from './agent-status.js';
import { asServerUser } from './server-user.js';

export async function uninstallAgent(s: Services, server: ServerRow, nextMode: ServerRow['metricsMode'] = 'disabled'): Promise<AgentStatus> {
  await s.hosts.exec(server.id, await asServerUser(s, server, removeAgent()), { timeoutMs: 60_000 });
  await s.serverAgents.remove(server.id);
  const updated = server.metricsMode === 'agent' ? (await s.servers.update(server.id, { metricsMode: nextMode }))! : server;
  const status = await observeAgent(s, updated);
  await s.events.publish('agent.removed', server.environmentId, { serverId: server.id, serverName: server.name, installed: status.installed });
  return status;
}
