import {
  CallToolRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC's "invalid params" (the SDK answers a request its schema refuses with -32603, internal error). */
export const INVALID_PARAMS = -32602;

/** The requests this server answers, with the SDK's own schema of each. */
const SCHEMAS = {
  'tools/call': CallToolRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
} as const;

/**
 * Why a request's params do not fit its method (`tools/call` with `"arguments": null`, a number
 * for a resource URI), or null when they do or the method is not one of the above. Names the
 * params path, never the value.
 */
export function invalidParams(message: JSONRPCMessage): string | null {
  if (!('method' in message) || !('id' in message)) return null;
  const schema = SCHEMAS[message.method as keyof typeof SCHEMAS];
  if (!schema) return null;
  const parsed = schema.safeParse(message);
  if (parsed.success) return null;
  const issue = parsed.error.issues[0];
  const at = issue.path.filter((p) => p !== 'params').join('.') || 'params';
  return `Invalid params: ${message.method} ${at}: ${issue.message}`;
}
