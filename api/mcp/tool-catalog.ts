import { z } from 'zod';
import type { RouteSpec } from '../http/route.js';
import type { Schema } from '../http/schema.js';
import { objectOf, zodOf } from './input-schema.js';
import { TOOL_BINDINGS, type ToolBinding } from './tool-bindings.js';

/** One MCP tool: a spec-named projection of one route of the route table. */
export interface CatalogTool {
  name: string;
  spec: RouteSpec;
  /** "METHOD /path": the route the tool replays. */
  route: string;
  /** A write tool (destructive, derived Idempotency-Key); reads are GET routes. */
  write: boolean;
  /** Only admins may call it: the route needs the admin role or an admin-only scope. */
  adminGated: boolean;
  description: string;
  input: z.ZodObject;
  /** [path parameter, tool argument] pairs. */
  pathArgs: Array<[string, string]>;
  queryArgs: string[];
  bodyArgs: string[];
  project?: (body: unknown) => unknown;
}

export interface ToolCatalog {
  tools: CatalogTool[];
  /** Spec-named tools whose route does not exist yet. */
  absent: Array<{ name: string; routes: string[] }>;
}

/** Kinds the MCP surface must never create, update or delete (spec, MCP endpoint). */
const PROTECTED_KINDS = /^\/api\/(?:environments(?:\/\{envId\}\/(?:servers|services|secrets|vars|config-files|databases|registries))?|(?:servers|services|secrets|vars|config-files|databases|environments|registries)\/\{id\})$/;

/** A binding that would break the spec's promises is a programming error: refuse to start. */
function assertAllowed(name: string, spec: RouteSpec): void {
  const why = spec.raw ? 'a stream cannot be replayed as one answer'
    : spec.requestBody ? 'a non-JSON body cannot be replayed'
      : ['PUT', 'PATCH', 'DELETE'].includes(spec.method) ? 'MCP offers no update or delete'
        : /\/reveal$/.test(spec.path) ? 'MCP offers no secret-reveal tool'
          : spec.method === 'POST' && PROTECTED_KINDS.test(spec.path) ? 'MCP offers no create of this kind'
            : null;
  if (why) throw new Error(`MCP tool ${name} cannot replay ${spec.method} ${spec.path}: ${why}`);
}

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

const ADMIN_SCOPES = new Set(['admin:*', 'tokens:manage']);

function toolOf(binding: ToolBinding, spec: RouteSpec): CatalogTool {
  assertAllowed(binding.name, spec);
  const write = spec.method !== 'GET';
  const shape: Record<string, z.ZodType> = {};
  const pathArgs: Array<[string, string]> = pathParams(spec.path).map((p) => [p, binding.argOfParam?.[p] ?? p]);
  for (const [param, arg] of pathArgs) shape[arg] = z.string().min(1).meta({ description: `{${param}} of ${spec.path}` });

  const body = (spec.body ?? {}) as Schema;
  const bodyProps = write ? Object.keys((body.properties as Record<string, Schema>) ?? {}) : [];
  if (bodyProps.length) Object.assign(shape, objectOf(body).shape);
  const queryArgs = Object.keys(spec.query ?? {}).filter((k) => !bodyProps.includes(k) && !(k in shape));
  for (const k of queryArgs) shape[k] = zodOf(spec.query![k]).optional();
  if (write) {
    shape.idempotencyKey = z.string().min(1).max(200).optional()
      .meta({ description: 'Idempotency-Key to send instead of the derived one (repeats with the same key replay the first answer)' });
  }

  const route = `${spec.method} ${spec.path}`;
  const replayNote = write
    ? ` Replays ${route}. The same arguments within about 60 s replay the first answer instead of acting twice${bodyProps.includes('dryRun') ? ' (dryRun: true is always recomputed)' : ''}.`
    : ` Replays ${route}.`;
  return {
    name: binding.name,
    spec,
    route,
    write,
    adminGated: spec.access === 'admin' || ADMIN_SCOPES.has(spec.scope ?? ''),
    description: spec.summary + (spec.summary.endsWith('.') ? '' : '.') + replayNote,
    input: z.strictObject(shape),
    pathArgs,
    queryArgs,
    bodyArgs: bodyProps,
    project: binding.project,
  };
}

/** The MCP tools of this route table: each spec-named tool whose route exists, in the spec's order. */
export function buildToolCatalog(specs: RouteSpec[], bindings: ToolBinding[] = TOOL_BINDINGS): ToolCatalog {
  const byRoute = new Map(specs.map((s) => [`${s.method} ${s.path}`, s]));
  const tools: CatalogTool[] = [];
  const absent: ToolCatalog['absent'] = [];
  const names = new Set<string>();
  for (const binding of bindings) {
    // a kind's derived list tool named like a tool of the spec would hide one of them
    if (names.has(binding.name)) throw new Error(`MCP tool ${binding.name} is bound twice`);
    names.add(binding.name);
    const spec = binding.routes.map((r) => byRoute.get(r)).find(Boolean);
    if (spec) tools.push(toolOf(binding, spec));
    else absent.push({ name: binding.name, routes: binding.routes });
  }
  return { tools, absent };
}
