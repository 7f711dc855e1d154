import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';

/** `serviceId` depends on `dependsOnServiceId`: the latter deploys first. */
export interface ServiceDependencyRow {
  id: string;
  serviceId: string;
  dependsOnServiceId: string;
  createdAt: Date;
}

export class ServiceDependenciesRepository extends BaseRepository<ServiceDependencyRow> {
  constructor(db: Knex) {
    super(db, 'service_dependencies', {
      service_dependencies_pair_unique: 'This dependency already exists',
      service_dependencies_not_self: 'A service cannot depend on itself',
    });
  }

  /** Every edge between services of one environment. */
  listByEnvironment(environmentId: string, trx?: Knex.Transaction): Promise<ServiceDependencyRow[]> {
    return this.q(trx)
      .join('services', 'services.id', 'service_dependencies.service_id')
      .where('services.environment_id', environmentId)
      .select('service_dependencies.*')
      .orderBy([{ column: 'service_dependencies.created_at' }, { column: 'service_dependencies.id' }]) as Promise<ServiceDependencyRow[]>;
  }

  /** What the service depends on. */
  listDependencies(serviceId: string, trx?: Knex.Transaction): Promise<ServiceDependencyRow[]> {
    return this.q(trx).where({ serviceId }).orderBy('createdAt') as Promise<ServiceDependencyRow[]>;
  }

  /** What depends on the service. */
  listDependents(serviceId: string, trx?: Knex.Transaction): Promise<ServiceDependencyRow[]> {
    return this.q(trx).where({ dependsOnServiceId: serviceId }).orderBy('createdAt') as Promise<ServiceDependencyRow[]>;
  }

  create(serviceId: string, dependsOnServiceId: string, trx?: Knex.Transaction) {
    return this.insert({ serviceId, dependsOnServiceId }, trx);
  }
}

export function toServiceDependency(d: ServiceDependencyRow) {
  return { id: d.id, serviceId: d.serviceId, dependsOnServiceId: d.dependsOnServiceId, createdAt: d.createdAt };
}
