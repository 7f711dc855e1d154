import type { Knex } from 'knex';

export interface ServiceOfPackage { id: string; name: string; environmentId: string; containerImageId: string; environmentName: string }

/** Reads of services through the container image they run, for the CI webhooks. */
export class ServiceImages {
  constructor(private readonly db: Knex) {}

  /** The services linked to an image, by name. */
  usersOf(containerImageId: string): Promise<Array<{ id: string; name: string }>> {
    return this.db('services').where('containerImageId', containerImageId).orderBy('name').select('id', 'name');
  }

  /** Services of every environment whose image name contains `packageName`, by environment then service name. */
  usingPackage(packageName: string): Promise<ServiceOfPackage[]> {
    return this.db('services as s').join('container_images as i', 'i.id', 's.containerImageId')
      .join('environments as e', 'e.id', 's.environmentId')
      .whereRaw('strpos(i.image_name, ?) > 0', [packageName])
      .orderBy([{ column: 'e.name' }, { column: 's.name' }])
      .select('s.id', 's.name', 's.environmentId', 's.containerImageId', 'e.name as environmentName');
  }
}
