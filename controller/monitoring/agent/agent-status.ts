// What is known of a server's agent, each fact from where it was observed: the script's own status
// on the server (installed, version, supervisor, process alive) and the controller's record of the
// agent's requests (token, last configuration fetch, last ingest). An unreachable server gives
// nulls and the reason, never a guess.
import { HostError } from '../../hosts/errors.js';
import { agentStatus } from '../../hosts/commands/agent.js';
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';
import { AGENT_VERSION } from '../../version.js';
import { asServerUser } from './server-user.js';

export type Supervisor = 'systemd' | 'loop' | 'none';

/** The script's `status` output (key=value lines). */
export interface OnServer {
  installed: boolean;
  version: string | null;
  supervisor: Supervisor | null;
  running: boolean;
  pid: number | null;
}

export function parseAgentStatus(text: string): OnServer {
  const kv = new Map(text.split('\n').map((l) => l.trim()).filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as [string, string]));
  const installed = kv.get('installed') === 'yes';
  const supervisor = kv.get('supervisor');
  const pid = Number.parseInt(kv.get('pid') ?? '', 10);
  return {
    installed,
    version: installed ? kv.get('version') || null : null,
    supervisor: installed && (supervisor === 'systemd' || supervisor === 'loop' || supervisor === 'none') ? supervisor : null,
    running: installed && kv.get('running') === 'yes',
    pid: installed && pid > 0 ? pid : null,
  };
}

export interface AgentStatus {
  serverId: string;
  metricsMode: string;
  bundledVersion: string;
  /** False when the server could not be asked: the on-server fields are then null. */
  reachable: boolean;
  installed: boolean | null;
  installedVersion: string | null;
  upToDate: boolean | null;
  supervisor: Supervisor | null;
  running: boolean | null;
  pid: number | null;
  hasToken: boolean;
  tokenPrefix: string | null;
  tokenCreatedAt: Date | null;
  lastConfigAt: Date | null;
  lastIngestAt: Date | null;
  /** The version the agent announced on its last request. */
  reportedVersion: string | null;
  observedAt: string;
  message: string;
}

/** Asks the server (the script's status) and reads the controller's record of the agent. */
export async function observeAgent(s: Services, server: ServerRow): Promise<AgentStatus> {
  const record = await s.serverAgents.findByServer(server.id);
  let onServer: OnServer | null = null;
  let message: string;
  try {
    const argv = await asServerUser(s, server, agentStatus());
    onServer = parseAgentStatus((await s.hosts.exec(server.id, argv, { timeoutMs: 20_000 })).stdout);
    message = !onServer.installed ? 'The agent is not installed on the server'
      : onServer.running ? `The agent runs (${onServer.supervisor === 'systemd' ? 'systemd unit' : 'supervised loop'}, pid ${onServer.pid ?? '?'})`
        : 'The agent is installed but its process is not running';
  } catch (err) {
    if (!(err instanceof HostError)) throw err;
    message = `The server could not be asked: ${err.message}`;
  }
  return {
    serverId: server.id,
    metricsMode: server.metricsMode,
    bundledVersion: AGENT_VERSION,
    reachable: onServer !== null,
    installed: onServer?.installed ?? null,
    installedVersion: onServer?.version ?? null,
    upToDate: onServer?.installed ? onServer.version === AGENT_VERSION : null,
    supervisor: onServer?.supervisor ?? null,
    running: onServer ? onServer.running : null,
    pid: onServer?.pid ?? null,
    hasToken: !!record,
    tokenPrefix: record?.tokenPrefix ?? null,
    tokenCreatedAt: record?.tokenCreatedAt ?? null,
    lastConfigAt: record?.lastConfigAt ?? null,
    lastIngestAt: record?.lastIngestAt ?? null,
    reportedVersion: record?.lastVersion ?? null,
    observedAt: new Date().toISOString(),
    message,
  };
}
