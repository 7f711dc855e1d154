import type { Knex } from 'knex';
import { nodeTables } from './topology-nodes.js';

export interface TopologyNode { kind: string; id: string; name: string; detail: string | null }
export interface TopologyEdge {
  kind: 'connection' | 'dependency';
  /** The connection's id, or the dependency's. */
  id: string;
  from: { kind: string; id: string };
  to: { kind: string; id: string };
  label: string | null;
}
export interface TopologyCluster { id: string; name: string; serverIds: string[] }
export interface Topology { nodes: TopologyNode[]; edges: TopologyEdge[]; clusters: TopologyCluster[] }

/** What a node shows besides its name, by kind. */
const DETAIL: Record<string, string | null> = { Server: 'hostname', Service: null, Database: null, ExternalEntity: 'type' };

/** Reads an environment's whole topology graph, and its diagram layout. */
export class TopologyRepository {
  constructor(private readonly db: Knex) {}

  /**
   * Nodes (servers, services, databases when that table exists, external entities), edges
   * (connections whose ends both exist, and service dependencies) and server clusters.
   */
  async graph(environmentId: string): Promise<Topology> {
    const nodes: TopologyNode[] = [];
    for (const [kind, table] of Object.entries(await nodeTables(this.db))) {
      const detail = DETAIL[kind];
      const rows = await this.db(table).where({ environmentId }).orderBy('name')
        .select('id', 'name', ...(detail ? [detail] : []));
      nodes.push(...rows.map((r: Record<string, string>) => ({ kind, id: r.id, name: r.name, detail: detail ? r[detail] ?? null : null })));
    }
    const present = new Set(nodes.map((n) => `${n.kind}/${n.id}`));
    const connections = await this.db('connections').where({ environmentId }).orderBy('name')
      .select('id', 'name', 'fromKind', 'fromId', 'toKind', 'toId', 'label', 'protocol', 'port');
    const edges: TopologyEdge[] = connections
      .filter((c) => present.has(`${c.fromKind}/${c.fromId}`) && present.has(`${c.toKind}/${c.toId}`))
      .map((c) => ({
        kind: 'connection', id: c.id, from: { kind: c.fromKind, id: c.fromId }, to: { kind: c.toKind, id: c.toId },
        label: c.label ?? ([c.protocol, c.port].filter((x) => x != null).join(':') || null),
      }));
    const dependencies = await this.db('service_dependencies as d').join('services as s', 's.id', 'd.serviceId')
      .where('s.environmentId', environmentId).orderBy('d.createdAt').select('d.id', 'd.serviceId', 'd.dependsOnServiceId');
    edges.push(...dependencies.map((d) => ({
      kind: 'dependency' as const, id: d.id, from: { kind: 'Service', id: d.serviceId },
      to: { kind: 'Service', id: d.dependsOnServiceId }, label: 'depends on',
    })));
    const members = await this.db('server_cluster_members as m').join('server_clusters as c', 'c.id', 'm.clusterId')
      .where('c.environmentId', environmentId).select('m.clusterId', 'm.serverId');
    const clusters = (await this.db('server_clusters').where({ environmentId }).orderBy('name').select('id', 'name'))
      .map((c) => ({
        id: c.id, name: c.name,
        serverIds: members.filter((m) => m.clusterId === c.id).map((m) => m.serverId).sort(),
      }));
    return { nodes, edges, clusters };
  }

  async layout(environmentId: string): Promise<{ layout: Record<string, unknown>; updatedAt: Date } | undefined> {
    return this.db('diagram_layouts').where({ environmentId }).first('layout', 'updatedAt');
  }

  async saveLayout(environmentId: string, layout: Record<string, unknown>): Promise<{ layout: Record<string, unknown>; updatedAt: Date }> {
    const [row] = await this.db('diagram_layouts')
      .insert({ environmentId, layout: JSON.stringify(layout) })
      .onConflict('environmentId').merge({ layout: JSON.stringify(layout), updatedAt: this.db.fn.now() })
      .returning(['layout', 'updatedAt']);
    return row;
  }
}
