import type { Knex } from 'knex';

export type ServerContainerRow = Record<string, any>;

/** server_containers: the containers last discovered on each server, replaced as a whole per server. */
export class ServerContainersRepository {
  constructor(private readonly db: Knex) {}

  /** Replaces the server's recorded containers with `rows`, in one transaction. */
  async replace(serverId: string, rows: ServerContainerRow[]): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('server_containers').where({ serverId }).delete();
      if (rows.length) await trx('server_containers').insert(rows);
    });
  }

  /** The server's containers by name, each with the service of the deployment it matched. */
  listWithService(serverId: string): Promise<ServerContainerRow[]> {
    return this.db('server_containers').leftJoin('deployments', 'deployments.id', 'server_containers.deploymentId')
      .where('server_containers.serverId', serverId).orderBy('server_containers.name')
      .select('server_containers.*', 'deployments.serviceId as serviceId');
  }
}
