import type { Services } from '../../controller/services.js';
import { observeAgent } from '../../controller/monitoring/agent/agent-status.js';
import { installAgent } from '../../controller/monitoring/agent/install-agent.js';
import { uninstallAgent } from '../../controller/monitoring/agent/remove-agent.js';
import { regenerateAgentToken } from '../../controller/monitoring/agent/regenerate-token.js';
import type { ServerRow } from '../../controller/store/repositories/servers.js';
import { route } from '../http/route.js';
import { bool, enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';
import { agentInstallFields, agentInstallOptions, type AgentInstallBody } from './agent-install-body.js';

const statusRead = object({
  serverId: uuid, metricsMode: enumOf('disabled', 'ssh', 'agent'), bundledVersion: str(), reachable: bool,
  installed: nullable(bool), installedVersion: nullable(str()), upToDate: nullable(bool),
  supervisor: nullable(enumOf('systemd', 'loop', 'none')), running: nullable(bool), pid: nullable(int(1)),
  hasToken: bool, tokenPrefix: nullable(str()), tokenCreatedAt: nullableTimestamp, lastConfigAt: nullableTimestamp,
  lastIngestAt: nullableTimestamp, reportedVersion: nullable(str()), observedAt: timestamp, message: str(),
});
const installRead = object({ ...(statusRead.properties as Record<string, never>), reachedController: bool });
const installBody = object(agentInstallFields);
const eventRead = object({ id: int(1), type: str(), data: { type: 'object' }, createdAt: timestamp });

/**
 * The monitoring agent of a server (status, install, remove, token) and the agent events of an
 * environment. Changing the metrics mode (which installs or removes it) is in servers.ts.
 */
export default function serverAgentRoutes(s: Services) {
  const load = rowOf(s.servers, 'Server');
  return [
    route<unknown, unknown, ServerRow>({
      method: 'GET', path: '/api/servers/{id}/agent', operationId: 'getServerAgent', tag: 'monitoring', access: 'viewer', load,
      summary: "The server's agent as observed now: installed version, supervisor, process alive (asked of the server), token, "
        + 'last configuration fetch and last ingest (as recorded by the controller). An unreachable server gives nulls and the reason',
      response: statusRead,
      handler: (_ctx, { resource }) => observeAgent(s, resource),
    }),

    route<AgentInstallBody, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/agent', operationId: 'installServerAgent', tag: 'monitoring', access: 'operator', load,
      summary: 'Install (or re-install) the agent over SSH with a fresh token, start it (systemd unit, or a supervised loop) and set '
        + "the metrics mode to agent. controllerUrl: where the server reaches the controller (default STEVEDORE_PUBLIC_URL, else this "
        + "request's URL). Waits up to waitSec for the agent's first configuration fetch (reachedController). 409 for socket-mode servers",
      body: installBody, response: installRead, errors: [409, 502, 503],
      async handler(ctx, { resource, body }) {
        const options = agentInstallOptions(s, ctx, body);
        const out = await installAgent(s, resource, options);
        ctx.state.audit = { environmentId: resource.environmentId, details: { controllerUrl: options.controllerUrl, reachedController: out.reachedController } };
        return out;
      },
    }),

    route<unknown, unknown, ServerRow>({
      method: 'DELETE', path: '/api/servers/{id}/agent', operationId: 'removeServerAgent', tag: 'monitoring', access: 'operator', load,
      summary: 'Stop and remove the agent from the server (unit or process, and every file), revoke its token, and turn a metrics '
        + 'mode of agent to disabled. Answers the status observed afterwards',
      response: statusRead, errors: [502, 503],
      async handler(ctx, { resource }) {
        ctx.state.audit = { environmentId: resource.environmentId, details: {} };
        return uninstallAgent(s, resource);
      },
    }),

    route<unknown, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/agent/token', operationId: 'regenerateServerAgentToken', tag: 'monitoring', access: 'operator',
      load,
      summary: "A new agent token (shown once; the old one stops working at once). An installed agent is handed it through its "
        + 'agent.env (deliveredToAgent)',
      response: object({ serverId: uuid, token: str(), tokenPrefix: str(), deliveredToAgent: bool, message: str() }),
      async handler(ctx, { resource }) {
        const out = await regenerateAgentToken(s, resource);
        // the audit entry records the request, never the token
        ctx.state.audit = { environmentId: resource.environmentId, details: { tokenPrefix: out.tokenPrefix, deliveredToAgent: out.deliveredToAgent } };
        return out;
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/agent-events', operationId: 'listAgentEvents', tag: 'monitoring', access: 'viewer',
      load: environmentOf(s),
      summary: "The environment's agent events, newest first: agent.installed, agent.removed, agent.connected (first sample after "
        + 'an install or a new token), agent.token_regenerated',
      query: paginationQuery, response: listOf(eventRead),
      async handler(_ctx, { params, query }) {
        const q = query as { limit: number; offset: number };
        const page = await s.events.pageOfPrefix(params.envId!, 'agent.', q);
        return { ...page, items: page.items.map((e) => ({ id: Number(e.id), type: e.type, data: e.data, createdAt: e.createdAt })), limit: q.limit, offset: q.offset };
      },
    }),
  ];
}
