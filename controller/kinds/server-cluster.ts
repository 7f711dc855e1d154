import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { arrayOf, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid } from './schema.js';

const description = nullable(str({ maxLength: 2000 }));

/**
 * A named group of servers. Membership is a side table (server_cluster_members): deleting a
 * cluster detaches its servers, deleting a server leaves its clusters. The API names members by
 * id (`serverIds`), manifests by name (`servers`).
 */
export const serverCluster: KindDescriptor = {
  kind: 'ServerCluster',
  namespaced: true,
  description: 'A named group of servers.',
  table: 'server_clusters',
  versioned: false,
  schemas: resourceSchemas({
    writable: {
      name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }), description,
      serverIds: arrayOf(uuid, { uniqueItems: true, maxItems: 500, default: [] }),
    },
    readOnly: { id: uuid, environmentId: uuid, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp },
    required: ['name'],
  }),
  references: [{ path: 'servers.*', kind: 'Server' }],
  manifest: {
    spec: object({
      description,
      servers: arrayOf(name('Name of a Server'), { minItems: 1, uniqueItems: true }),
    }, ['servers']),
    columns: ['description'],
    relations: ['servers'],
    desired: (spec) => ({ description: spec.description ?? null, servers: [...spec.servers].sort() }),
    actual: (row, ctx) => ({
      servers: ctx.relatedOf('server_cluster_members', 'clusterId', row.id).map((m) => ctx.nameOf('Server', m.serverId)).sort(),
    }),
  },
  api: { path: 'server-clusters', tagDescription: 'Groups of servers; deleting a cluster detaches its servers' },
};
