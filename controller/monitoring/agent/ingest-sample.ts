// One sample posted by an agent. The server is the token's, never the body's (a token of one
// server cannot post for another); the time is the controller's (an agent's clock may be off);
// the readings kept are those the environment's toggles enable.
import { conflict } from '../../errors/app-error.js';
import type { Services } from '../../services.js';
import type { AgentIdentity } from '../../store/repositories/server-agents.js';
import type { ContainerSample, ServerSample } from '../server-sample.js';
import { agentConfigOf, type AgentConfig } from './agent-config.js';
import { keepCollected } from './collected-metrics.js';

/** The readings an agent may post: a ServerSample without the fields the controller sets. */
export type AgentReadings = Omit<ServerSample, 'serverId' | 'at' | 'source' | 'containers'> & { containers?: ContainerSample[] };

export async function ingestAgentSample(s: Services, agent: AgentIdentity, readings: AgentReadings, version: string | null):
  Promise<AgentConfig & { stored: number }> {
  if (agent.metricsMode !== 'agent') {
    throw conflict(`The server's metrics mode is ${agent.metricsMode}: agent samples are refused`,
      'POST /api/servers/{id}/metrics-mode {"mode":"agent"}, or remove the agent');
  }
  const config = await agentConfigOf(s, agent);
  const sample = keepCollected({ ...readings, serverId: agent.serverId, at: new Date(), source: 'agent' }, config.collect);
  await s.serverSamples.insertServerSamples([sample]);
  const previous = await s.serverAgents.touchIngest(agent.serverId, version);
  if (!previous) {
    // the first sample since install or token regeneration: the agent is connected
    await s.events.publish('agent.connected', agent.environmentId, { serverId: agent.serverId, serverName: agent.serverName, version });
  }
  return { ...config, stored: 1 };
}
