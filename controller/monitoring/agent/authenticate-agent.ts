// Agent routes accept an agent token and nothing else: a user's JWT or API token is no agent.
import { constantTimeEqual } from '../../crypto/constant-time.js';
import { AGENT_TOKEN_PREFIX, agentTokenHash } from '../../crypto/agent-token.js';
import { unauthorized } from '../../errors/app-error.js';
import type { Services } from '../../services.js';
import type { AgentIdentity } from '../../store/repositories/server-agents.js';

const MAX_TOKEN_LENGTH = 100;

/**
 * The agent (and so the server) an `Authorization: Bearer agt_…` header stands for, or 401.
 * The row is found by the token's SHA-256 (a lookup by a hash of a random input tells a timing
 * observer nothing about any stored token); the hashes are then compared in constant time anyway.
 */
export async function authenticateAgent(s: Services, header: string | undefined): Promise<AgentIdentity> {
  const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!token) throw unauthorized('An agent token is required (Authorization: Bearer agt_…)');
  if (!token.startsWith(AGENT_TOKEN_PREFIX) || token.length > MAX_TOKEN_LENGTH) throw unauthorized('The agent token is invalid');
  const hash = agentTokenHash(token);
  const agent = await s.serverAgents.findByTokenHash(hash);
  if (!agent || !constantTimeEqual(agent.tokenHash, hash)) throw unauthorized('The agent token is invalid');
  return agent;
}
