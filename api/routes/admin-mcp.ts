import type { Services } from '../../controller/services.js';
import { route, type RouteSpec } from '../http/route.js';
import { arrayOf, bool, enumOf, nullable, object, str } from '../http/schema.js';
import { MCP_PATH } from '../mcp/endpoint.js';
import { CAPABILITIES_URI, RESOURCE_KINDS } from '../mcp/resources.js';
import { routeTableOf } from '../mcp/route-table.js';
import { buildToolCatalog, type ToolCatalog } from '../mcp/tool-catalog.js';

const toolRead = object({
  name: str(), kind: enumOf('read', 'admin-read', 'write', 'local'), route: nullable(str()), operationId: nullable(str()),
  access: nullable(str()), destructive: bool,
});
const statusRead = object({
  enabled: bool, endpoint: str(), transport: str(), allowedHosts: arrayOf(str()), dnsRebindingProtection: bool,
  tools: arrayOf(toolRead),
  absentTools: arrayOf(object({ name: str(), routes: arrayOf(str()) })),
  resources: arrayOf(object({ uri: str(), kind: enumOf('static', 'template'), route: nullable(str()), listRoute: nullable(str()) })),
});

/** GET /api/admin/mcp: whether the MCP endpoint is on, and what it offers, tool by tool with the route it replays. */
export default function adminMcpRoutes(s: Services): RouteSpec[] {
  let table: { catalog: ToolCatalog; routes: Set<string> } | null = null;
  // The tools derive from the whole route table, this route included: read it when first asked.
  const tableOf = () => {
    const specs = routeTableOf(s);
    return (table ??= { catalog: buildToolCatalog(specs), routes: new Set(specs.map((r) => `${r.method} ${r.path}`)) });
  };
  return [
    route({
      method: 'GET', path: '/api/admin/mcp', operationId: 'getMcpStatus', tag: 'admin', access: 'admin',
      summary: 'MCP endpoint status: enabled flag, allowed hosts, tools with the route each replays, resources',
      response: statusRead,
      async handler() {
        const { catalog: c, routes } = tableOf();
        return {
          enabled: s.config.mcpEnabled,
          endpoint: MCP_PATH,
          transport: 'Streamable HTTP, stateless, JSON responses',
          allowedHosts: s.config.mcpAllowedHosts,
          dnsRebindingProtection: s.config.mcpAllowedHosts.length > 0,
          tools: [
            ...c.tools.map((t) => ({
              name: t.name, kind: t.write ? 'write' : t.adminGated ? 'admin-read' : 'read', route: t.route,
              operationId: t.spec.operationId, access: t.spec.scope ?? t.spec.access, destructive: t.write,
            })),
            { name: 'get_capabilities', kind: 'local', route: null, operationId: null, access: null, destructive: false },
          ],
          absentTools: c.absent,
          resources: [
            { uri: CAPABILITIES_URI, kind: 'static', route: null, listRoute: null },
            ...RESOURCE_KINDS.filter((k) => routes.has(k.readRoute) && routes.has(k.listRoute))
              .map((k) => ({ uri: k.uriTemplate, kind: 'template', route: k.readRoute, listRoute: k.listRoute })),
          ],
        };
      },
    }),
  ];
}
