import { McpError, ErrorCode, type Resource } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RouteSpec } from '../http/route.js';
import { reachable } from './reachable.js';
import { getFor, type McpCaller, type Replay } from './tool-call.js';

/** The spec's resource enumeration cap: per environment, per kind. */
export const LIST_LIMIT = 200;

export interface ResourceKind {
  name: string;
  uriTemplate: string;
  /** The per-id route a read replays, and the per-environment list the listing walks. */
  readRoute: string;
  listRoute: string;
  title: string;
}

export const RESOURCE_KINDS: ResourceKind[] = [
  { name: 'config-file', uriTemplate: 'svc:///config-files/{id}', title: 'Config file',
    readRoute: 'GET /api/config-files/{id}', listRoute: 'GET /api/environments/{envId}/config-files' },
  { name: 'config-fragment', uriTemplate: 'svc:///config-fragments/{id}', title: 'Config fragment',
    readRoute: 'GET /api/config-fragments/{id}', listRoute: 'GET /api/environments/{envId}/config-fragments' },
];

export const CAPABILITIES_URI = 'svc:///capabilities';

interface Item { id: string; name: string; kind?: string; content?: string | null }
interface Env { id: string; name: string }

/** An API error on a resource read, as an MCP error that keeps the API's code and message. */
function apiError(res: { status: number; body: unknown }): McpError {
  const e = (res.body ?? {}) as { code?: string; message?: string };
  const code = res.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, `${e.code ?? res.status}: ${e.message ?? 'request failed'}`, e);
}

/** The kinds this caller can both list and read (an environment-limited token reads no per-id route). */
export function readableKinds(caller: McpCaller, specs: Map<string, RouteSpec>): ResourceKind[] {
  return RESOURCE_KINDS.filter((k) => {
    const read = specs.get(k.readRoute);
    const list = specs.get(k.listRoute);
    return read && list && reachable(caller.actor, read) && reachable(caller.actor, list);
  });
}

/**
 * Registers the resource templates: listing walks the caller's environments and asks each for
 * at most LIST_LIMIT items per kind; reading replays the per-id route and returns the stored
 * templated content (placeholders unresolved; secrets are never part of it).
 */
export function registerResourceTemplates(server: McpServer, kinds: ResourceKind[], caller: McpCaller, replay: Replay): void {
  let environments: Promise<Env[]> | null = null;
  const envs = () => (environments ??= listEnvironments(caller, replay));
  for (const kind of kinds) {
    const listPath = kind.listRoute.slice('GET '.length);
    const template = new ResourceTemplate(kind.uriTemplate, {
      list: async () => {
        const perEnv = await Promise.all((await envs()).map(async (env) => {
          const res = await getFor(caller, replay, `${listPath.replace('{envId}', env.id)}?limit=${LIST_LIMIT}`);
          if (res.status >= 400) throw apiError(res);
          return ((res.body as { items: Item[] }).items ?? [])
            .filter((item) => item.kind === undefined || item.kind === 'template')
            .map((item): Resource => ({
              uri: kind.uriTemplate.replace('{id}', item.id),
              name: `${env.name}/${item.name}`,
              title: `${kind.title} ${item.name} (environment ${env.name})`,
              description: `${kind.title} '${item.name}' in environment '${env.name}', as stored: placeholders unresolved`,
              mimeType: 'text/plain',
            }));
        }));
        return { resources: perEnv.flat() };
      },
    });
    server.registerResource(kind.name, template, {
      title: kind.title,
      description: `${kind.title}s of the environments you can see, as stored (placeholders unresolved). Reads replay ${kind.readRoute}.`,
      mimeType: 'text/plain',
    }, async (uri, variables) => {
      const id = String(variables.id);
      const res = await getFor(caller, replay, kind.readRoute.slice('GET '.length).replace('{id}', encodeURIComponent(id)));
      if (res.status >= 400) throw apiError(res);
      const item = res.body as Item;
      if (typeof item.content !== 'string') {
        throw new McpError(ErrorCode.InvalidParams, `${kind.title} ${item.name} is a binary asset: it has no templated form`);
      }
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: item.content }] };
    });
  }
}

/** Every environment the caller can see, page by page. */
async function listEnvironments(caller: McpCaller, replay: Replay): Promise<Env[]> {
  const all: Env[] = [];
  for (let offset = 0; ; offset += LIST_LIMIT) {
    const res = await getFor(caller, replay, `/api/environments?limit=${LIST_LIMIT}&offset=${offset}`);
    if (res.status >= 400) throw apiError(res);
    const page = res.body as { items: Env[]; total: number };
    all.push(...page.items);
    if (page.items.length < LIST_LIMIT || all.length >= page.total) return all;
  }
}
