import { notFound, validationError } from '../../controller/errors/app-error.js';
import { NODE_KINDS } from '../../controller/kinds/connection.js';
import type { Services } from '../../controller/services.js';
import { TopologyRepository } from '../../controller/store/repositories/topology.js';
import { toMermaid } from '../../controller/topology/mermaid.js';
import { result, route } from '../http/route.js';
import { arrayOf, enumOf, nullable, nullableTimestamp, object, str, uuid, type Schema } from '../http/schema.js';
import { environmentOf } from './loaders.js';

/** Diagram coordinates: finite and bounded, so a client cannot store what no screen can show. */
const coordinate: Schema = { type: 'number', minimum: -1_000_000, maximum: 1_000_000 };
const layoutBody = object({
  nodes: {
    type: 'object', maxProperties: 5000,
    description: 'Position of each node, keyed "<Kind>:<id>" (e.g. "Server:3f…")',
    additionalProperties: object({ x: coordinate, y: coordinate }, ['x', 'y']),
  },
  viewport: nullable(object({ x: coordinate, y: coordinate, zoom: { type: 'number', minimum: 0.01, maximum: 100 } }, ['x', 'y', 'zoom'])),
}, ['nodes']);
const layoutRead = object({ ...(layoutBody.properties as Record<string, Schema>), updatedAt: nullableTimestamp });

const end = object({ kind: enumOf(...NODE_KINDS), id: uuid });
const topologyRead = object({
  environmentId: uuid,
  nodes: arrayOf(object({ kind: enumOf(...NODE_KINDS), id: uuid, name: str(), detail: nullable(str()) })),
  edges: arrayOf(object({ kind: enumOf('connection', 'dependency'), id: uuid, from: end, to: end, label: nullable(str()) })),
  clusters: arrayOf(object({ id: uuid, name: str(), serverIds: arrayOf(uuid) })),
  layout: layoutRead,
});

const EMPTY_LAYOUT = { nodes: {}, viewport: null, updatedAt: null };

/**
 * An environment's topology as one graph: nodes (servers, services, databases, external
 * entities), edges (connections, service dependencies), server clusters; its diagram layout;
 * and the Mermaid export. The items themselves are CRUD kinds (api/routes/kind-crud.ts).
 */
export default function topologyRoutes(s: Services) {
  const topology = new TopologyRepository(s.db);
  const layoutOf = async (environmentId: string) => {
    const row = await topology.layout(environmentId);
    return row ? { viewport: null, ...row.layout, updatedAt: row.updatedAt } : EMPTY_LAYOUT;
  };

  return [
    route({
      method: 'GET', path: '/api/environments/{envId}/topology', operationId: 'getTopology', tag: 'topology', access: 'viewer',
      summary: 'The whole topology of an environment in one call (nodes, edges, clusters, layout): the sync batch fetch',
      load: environmentOf(s), response: topologyRead,
      async handler(_ctx, { resource }) {
        const graph = await topology.graph(resource.id);
        return { environmentId: resource.id, ...graph, layout: await layoutOf(resource.id) };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/diagram-layout', operationId: 'getDiagramLayout', tag: 'topology',
      access: 'viewer', summary: 'Where the topology diagram puts each node (empty until saved)',
      load: environmentOf(s), response: layoutRead,
      handler: (_ctx, { resource }) => layoutOf(resource.id),
    }),

    route<{ nodes: Record<string, { x: number; y: number }>; viewport?: unknown }>({
      method: 'PUT', path: '/api/environments/{envId}/diagram-layout', operationId: 'saveDiagramLayout', tag: 'topology',
      access: 'operator', summary: 'Replace the diagram layout of an environment', load: environmentOf(s),
      body: layoutBody, response: layoutRead,
      async handler(ctx, { resource, body }) {
        const row = await topology.saveLayout(resource.id, { nodes: body.nodes, viewport: body.viewport ?? null });
        ctx.state.audit = { resourceType: 'topology', resourceId: resource.id, details: { nodes: Object.keys(body.nodes).length } };
        return { viewport: null, ...row.layout, updatedAt: row.updatedAt };
      },
    }),

    route<unknown, { environmentId?: string; format: string }>({
      method: 'GET', path: '/api/diagram-export', operationId: 'exportDiagram', tag: 'topology', access: 'viewer',
      summary: 'The environment\'s topology as Mermaid flowchart text',
      query: { environmentId: uuid, format: { ...enumOf('mermaid'), default: 'mermaid' } },
      response: str(), responseType: 'text/plain', errors: [404],
      async handler(_ctx, { query }) {
        const env = query.environmentId ? await s.environments.findById(query.environmentId) : undefined;
        if (!env) throw query.environmentId ? notFound('Environment') : validationRequired();
        return result(200, toMermaid(await topology.graph(env.id)), { 'content-type': 'text/plain; charset=utf-8' });
      },
    }),
  ];
}

const validationRequired = () => validationError('environmentId is required', 'environmentId');
