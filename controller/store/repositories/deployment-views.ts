import type { Knex } from 'knex';

export interface ServiceOnServer {
  deploymentId: string; serviceId: string; serviceName: string; containerName: string; status: string; imageTag: string | null;
}
export interface DeploymentOfEnvironment {
  serviceId: string; serviceName: string; deploymentId: string; serverId: string; containerName: string; status: string;
  /** The tag the container was last seen running, and its status conditions (Ready, Degraded, Drifted...). */
  imageTag: string | null; conditions: unknown[];
}

/** Reads of deployments joined with their services' names, for listings. */
export class DeploymentViews {
  constructor(private readonly db: Knex) {}

  /** The services placed on one server, by service name. */
  servicesOn(serverId: string): Promise<ServiceOnServer[]> {
    return this.db('deployments').join('services', 'services.id', 'deployments.serviceId')
      .where('deployments.serverId', serverId).orderBy('services.name')
      .select('deployments.id as deploymentId', 'services.id as serviceId', 'services.name as serviceName',
        'deployments.containerName', 'deployments.status', 'deployments.imageTag');
  }

  /** Every deployment of an environment, by service name then container name. */
  ofEnvironment(environmentId: string): Promise<DeploymentOfEnvironment[]> {
    return this.db('deployments').join('services', 'services.id', 'deployments.serviceId')
      .where('deployments.environmentId', environmentId).orderBy(['services.name', 'deployments.containerName'])
      .select('services.id as serviceId', 'services.name as serviceName', 'deployments.id as deploymentId',
        'deployments.serverId', 'deployments.containerName', 'deployments.status', 'deployments.imageTag', 'deployments.conditions');
  }

  /** A server's deployments: id, service and container name. */
  onServer(serverId: string): Promise<Array<{ id: string; serviceId: string; containerName: string }>> {
    return this.db('deployments').where({ serverId }).select('id', 'serviceId', 'containerName');
  }

  /** The container names of a service's deployments. */
  async containerNamesOf(serviceId: string): Promise<string[]> {
    const rows = await this.db('deployments').where({ serviceId }).orderBy('containerName').select('containerName') as Array<{ containerName: string }>;
    return rows.map((r) => r.containerName);
  }
}
