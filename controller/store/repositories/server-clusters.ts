import type { Knex } from 'knex';
import { validationError } from '../../errors/app-error.js';
import { KindRepository, type KindRow } from './kind-repository.js';

/**
 * Server clusters: members are rows of server_cluster_members (the API's `serverIds`), so
 * deleting a cluster detaches its servers and nothing else.
 */
export class ServerClustersRepository extends KindRepository {
  protected override columns(body: Record<string, unknown>) {
    const { serverIds: _s, ...rest } = body;
    return super.columns(rest);
  }

  /** Members must be servers of the cluster's environment. */
  protected override async check(trx: Knex.Transaction, environmentId: string, body: Record<string, unknown>) {
    const ids = body.serverIds as string[] | undefined;
    if (!ids?.length) return;
    const found = await trx('servers').whereIn('id', ids).andWhere({ environmentId }).select('id');
    const known = new Set(found.map((r: { id: string }) => r.id));
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length) throw validationError(`serverIds: no server ${missing.join(', ')} in this environment`, 'serverIds');
  }

  protected override async afterWrite(trx: Knex.Transaction, row: KindRow, body: Record<string, unknown>) {
    const ids = body.serverIds as string[] | undefined;
    if (ids === undefined) return;
    await trx('server_cluster_members').where({ clusterId: row.id }).delete();
    if (ids.length) await trx('server_cluster_members').insert(ids.map((serverId) => ({ clusterId: row.id, serverId })));
  }

  override async present(rows: KindRow[]) {
    const members = rows.length
      ? await this.db('server_cluster_members').whereIn('clusterId', rows.map((r) => r.id)).select('clusterId', 'serverId')
      : [];
    const plain = await super.present(rows);
    return plain.map((p, i) => ({
      ...p,
      serverIds: members.filter((m: { clusterId: string }) => m.clusterId === rows[i].id).map((m: { serverId: string }) => m.serverId).sort(),
    }));
  }

  /** Cluster id -> its servers' ids, for an environment (the topology groups servers by it). */
  async membersOf(environmentId: string): Promise<Array<{ clusterId: string; serverId: string; clusterName: string }>> {
    return this.db('server_cluster_members as m').join('server_clusters as c', 'c.id', 'm.clusterId')
      .where('c.environmentId', environmentId).select('m.clusterId', 'm.serverId', 'c.name as clusterName');
  }
}
