import type { Services } from '../../controller/services.js';
import { agentConfigOf } from '../../controller/monitoring/agent/agent-config.js';
import { authenticateAgent } from '../../controller/monitoring/agent/authenticate-agent.js';
import { ingestAgentSample, type AgentReadings } from '../../controller/monitoring/agent/ingest-sample.js';
import type { AgentIdentity } from '../../controller/store/repositories/server-agents.js';
import { route } from '../http/route.js';
import { arrayOf, int, nonEmpty, object, str, uuid, type Schema } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

const bytes = int(0, Number.MAX_SAFE_INTEGER);
const count = int(0, Number.MAX_SAFE_INTEGER);
const load = { type: 'number', minimum: 0, maximum: 1_000_000 };
const container = object({
  name: nonEmpty(255, { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
  // per container, 100 % per core: a busy container on 8 cores reads 800
  cpuPercent: { type: 'number', minimum: 0, maximum: 100_000 },
  memoryUsedBytes: bytes, memoryLimitBytes: bytes,
}, ['name', 'cpuPercent', 'memoryUsedBytes', 'memoryLimitBytes']);

const readings: Schema = object({
  cpuPercent: { type: 'number', minimum: 0, maximum: 100 },
  memoryUsedBytes: bytes, memoryTotalBytes: bytes, swapUsedBytes: bytes, swapTotalBytes: bytes,
  diskUsedBytes: bytes, diskTotalBytes: bytes, load1: load, load5: load, load15: load,
  openFds: count, tcpConnections: count, processes: count,
  containers: arrayOf(container, { maxItems: 2000 }),
});

const configRead = object({
  serverId: uuid, metricsMode: str(), intervalSec: int(1), collect: arrayOf(str()), latestVersion: str(),
});

/** The version an agent announces (X-Agent-Version), when it looks like one. */
const announcedVersion = (ctx: Ctx): string | null => {
  const v = ctx.get('X-Agent-Version');
  return /^[0-9A-Za-z.+-]{1,32}$/.test(v) ? v : null;
};

/**
 * The routes the monitoring agent calls. They take an agent token (`Authorization: Bearer agt_…`)
 * and nothing else: the route is public to the user-token check, and `load` authenticates the
 * agent (401 before anything else), so the server is always the token's.
 */
export default function agentRoutes(s: Services) {
  const agent = (ctx: Ctx) => authenticateAgent(s, ctx.get('Authorization') || undefined);
  return [
    route<unknown, unknown, AgentIdentity>({
      method: 'GET', path: '/api/agent/config', operationId: 'getAgentConfig', tag: 'monitoring', access: 'public', load: agent,
      summary: "The agent's configuration: sampling interval and the metrics the environment's monitoring toggles enable. "
        + 'Agent token only (Authorization: Bearer agt_…); any other token is 401',
      response: configRead, errors: [401],
      async handler(ctx, { resource }) {
        await s.serverAgents.touchConfig(resource.serverId, announcedVersion(ctx));
        return agentConfigOf(s, resource);
      },
    }),

    route<AgentReadings, unknown, AgentIdentity>({
      method: 'POST', path: '/api/agent/ingest', operationId: 'ingestAgentSample', tag: 'monitoring', access: 'public', load: agent,
      summary: "One sample of the server's resources from its agent (the server is the token's; the time is the controller's). "
        + "Readings whose monitoring toggle is off are not stored. Answers the current configuration. 409 when the server's "
        + 'metrics mode is not agent',
      body: readings, response: object({ ...configRead.properties as Record<string, Schema>, stored: int(0) }), errors: [401, 409],
      audit: false,
      handler: (ctx, { resource, body }) => ingestAgentSample(s, resource, body, announcedVersion(ctx)),
    }),
  ];
}
