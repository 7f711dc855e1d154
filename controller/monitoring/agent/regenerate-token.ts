// A new agent token for a server (the old one stops working at once). When the agent is installed
// the new token is written to its agent.env, which it reads before every post: no restart needed.
// The token is answered once, for an agent installed by hand.
import { agentTokenHash, agentTokenPrefix, generateAgentToken } from '../../crypto/agent-token.js';
import { HostError } from '../../hosts/errors.js';
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';
import { parseAgentStatus } from './agent-status.js';
import { agentStatus } from '../../hosts/commands/agent.js';
import { writeAgentEnv } from './install-agent.js';
import { asServerUser } from './server-user.js';

export interface RegeneratedToken {
  serverId: string;
  token: string;
  tokenPrefix: string;
  /** True when the installed agent was handed the new token. */
  deliveredToAgent: boolean;
  message: string;
}

export async function regenerateAgentToken(s: Services, server: ServerRow): Promise<RegeneratedToken> {
  const token = generateAgentToken();
  const row = await s.serverAgents.setToken(server.id, { hash: agentTokenHash(token), prefix: agentTokenPrefix(token) });
  await s.events.publish('agent.token_regenerated', server.environmentId, { serverId: server.id, serverName: server.name });
  const answer = { serverId: server.id, token, tokenPrefix: row.tokenPrefix };
  if (!row.controllerUrl || server.dockerMode === 'socket') {
    return { ...answer, deliveredToAgent: false, message: 'No agent was installed by the controller: give the token to your agent' };
  }
  try {
    const probe = await s.hosts.exec(server.id, await asServerUser(s, server, agentStatus()), { timeoutMs: 20_000 });
    if (!parseAgentStatus(probe.stdout).installed) {
      return { ...answer, deliveredToAgent: false, message: 'The agent is not installed on the server' };
    }
    await writeAgentEnv(s, server, row.controllerUrl, token);
    return { ...answer, deliveredToAgent: true, message: 'The installed agent uses the new token from its next sample' };
  } catch (err) {
    if (!(err instanceof HostError)) throw err;
    return { ...answer, deliveredToAgent: false, message: `The server could not be reached: ${err.message}` };
  }
}
