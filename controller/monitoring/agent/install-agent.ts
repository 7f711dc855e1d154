// Installs (or re-installs: the same steps, idempotent) the agent on a server over SSH: a fresh
// token, the script and its agent.env uploaded, the script's `start` (systemd unit, or supervised
// loop), the metrics mode set to agent, then what was observed: whether the agent came up and
// whether it reached the controller with its token within `waitMs`.
import { agentTokenHash, agentTokenPrefix, generateAgentToken } from '../../crypto/agent-token.js';
import { conflict } from '../../errors/app-error.js';
import { AGENT_ENV, AGENT_SCRIPT, agentCommand, writeFromStdin } from '../../hosts/commands/agent.js';
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';
import { observeAgent, type AgentStatus } from './agent-status.js';
import { bundledAgentScript } from './bundled-agent.js';
import { asServerUser } from './server-user.js';

export interface InstallOptions {
  /** Base URL the server reaches the controller at. */
  controllerUrl: string;
  /** How long to wait for the agent's first configuration fetch. */
  waitMs: number;
}

export type InstallResult = AgentStatus & { reachedController: boolean };

/** agent.env: raw values, one per line (the script reads them with sed, never sources them). */
export const agentEnvFile = (controllerUrl: string, token: string): string =>
  `STEVEDORE_URL=${controllerUrl}\nSTEVEDORE_AGENT_TOKEN=${token}\n`;

/** Uploads agent.env (mode 0600) through stdin: the token is never part of a command line. */
export async function writeAgentEnv(s: Services, server: ServerRow, controllerUrl: string, token: string): Promise<void> {
  await s.hosts.exec(server.id, await asServerUser(s, server, writeFromStdin(AGENT_ENV, 0o600)),
    { stdin: agentEnvFile(controllerUrl, token), timeoutMs: 30_000 });
}

export async function installAgent(s: Services, server: ServerRow, o: InstallOptions): Promise<InstallResult> {
  if (server.dockerMode === 'socket') {
    throw conflict("A socket-mode server is the controller's own machine: use metrics mode ssh for it");
  }
  const token = generateAgentToken();
  const since = Date.now();
  // the script first: an unreachable server fails here, before anything is recorded
  await s.hosts.exec(server.id, await asServerUser(s, server, writeFromStdin(AGENT_SCRIPT, 0o755)),
    { stdin: bundledAgentScript(), timeoutMs: 30_000 });
  // the token is valid before the agent starts, so its first request is accepted
  await s.serverAgents.setToken(server.id, { hash: agentTokenHash(token), prefix: agentTokenPrefix(token), controllerUrl: o.controllerUrl });
  await writeAgentEnv(s, server, o.controllerUrl, token);
  await s.hosts.exec(server.id, await asServerUser(s, server, agentCommand('start')), { timeoutMs: 60_000 });
  const updated = (await s.servers.update(server.id, { metricsMode: 'agent' }))!;
  const reachedController = await firstContact(s, server.id, since, o.waitMs);
  const status = await observeAgent(s, updated);
  await s.events.publish('agent.installed', server.environmentId, {
    serverId: server.id, serverName: server.name, version: status.installedVersion, supervisor: status.supervisor,
    running: status.running, reachedController,
  });
  return { ...status, reachedController };
}

/** Waits until the agent fetched its configuration after `since` (positive signal, bounded). */
async function firstContact(s: Services, serverId: string, since: number, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const at = (await s.serverAgents.findByServer(serverId))?.lastConfigAt;
    if (at && at.getTime() >= since - 1000) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}
