import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { RouteSpec } from '../http/route.js';
import { scopesFor } from '../../controller/auth/policy.js';
import { reachable } from './reachable.js';
import { CAPABILITIES_URI, readableKinds, registerResourceTemplates } from './resources.js';
import type { CatalogTool, ToolCatalog } from './tool-catalog.js';
import { callTool, type McpCaller, type Replay } from './tool-call.js';

export interface McpDeps {
  version: string;
  catalog: ToolCatalog;
  specsByRoute: Map<string, RouteSpec>;
  replay: Replay;
}

// The SDK builds a new Ajv per server unless given one; a server per request cannot afford that.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** The tools this caller may call: those whose route its token reaches (role, scope, environment limits). */
export function toolsFor(caller: McpCaller, catalog: ToolCatalog): CatalogTool[] {
  return catalog.tools.filter((t) => reachable(caller.actor, t.spec));
}

/**
 * A new MCP server for one POST /mcp (stateless): it offers exactly the tools and resources this
 * token can use. Tools and read-only resources only: no prompts, no subscriptions, no
 * notifications (clients re-list on demand).
 */
export function mcpServerFor(caller: McpCaller, deps: McpDeps): McpServer {
  const server = new McpServer({ name: 'stevedore', version: deps.version }, {
    instructions: 'Stevedore deploys containers to servers. Every tool replays one API route with your token: '
      + 'errors carry the API code (FORBIDDEN_ROLE, NOT_FOUND, VALIDATION_ERROR, ...). Write tools are destructive; '
      + 'repeating one with the same arguments within about 60 s returns the first result.',
    jsonSchemaValidator,
  });
  const tools = toolsFor(caller, deps.catalog);
  const kinds = readableKinds(caller, deps.specsByRoute);
  const capabilities = {
    version: deps.version,
    scopes: scopesFor(caller.actor.role),
    tools: [...tools.map((t) => t.name), 'get_capabilities'],
  };

  for (const tool of tools) {
    server.registerTool(tool.name, {
      description: tool.description,
      inputSchema: tool.input,
      annotations: tool.write
        ? { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
        : { readOnlyHint: true, openWorldHint: false },
    }, (args) => callTool(tool, args as Record<string, unknown>, caller, deps.replay));
  }
  server.registerTool('get_capabilities', {
    description: 'The service version, your token\'s scopes and the tools you can call; built locally, no API call.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, () => ({ content: [{ type: 'text', text: JSON.stringify(capabilities) }], structuredContent: capabilities }));

  const resources = [CAPABILITIES_URI, ...kinds.map((k) => k.uriTemplate)];
  server.registerResource('capabilities', CAPABILITIES_URI, {
    title: 'Capabilities', description: 'Version, scopes, tools and resources of this token', mimeType: 'application/json',
  }, (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ ...capabilities, resources }) }] }));
  registerResourceTemplates(server, kinds, caller, deps.replay);

  // Nothing is ever pushed: say so instead of the SDK's default listChanged: true.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } });
  return server;
}
