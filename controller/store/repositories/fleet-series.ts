import type { Knex } from 'knex';

/** One service's figures for /metrics. */
export interface ServiceSeries { environment: string; service: string; ready: boolean; drifted: boolean }
/** One server's figures for /metrics. */
export interface ServerSeries { environment: string; server: string; ready: boolean; driftedDeployments: number }
/** A deployment whose container was last seen running, and the tag it runs. */
export interface RunningSeries { environment: string; service: string; server: string; container: string; tag: string }
/** The names a service's series carry. */
export interface ServiceNames { id: string; environment: string; service: string }

const READY = `'[{"type":"Ready","status":"True"}]'::jsonb`;
const DRIFTED = `'[{"type":"Drifted","status":"True"}]'::jsonb`;

/**
 * What /metrics reads of services, servers and deployments when Prometheus scrapes, in three
 * set-based queries (a condition is tested in SQL, so no condition list leaves the database),
 * and the names a plan's services are labelled with when it ends.
 */
export class FleetSeries {
  constructor(private readonly db: Knex) {}

  async read(): Promise<{ services: ServiceSeries[]; servers: ServerSeries[]; running: RunningSeries[] }> {
    const [services, servers, running] = await Promise.all([
      this.db('services as s').join('environments as e', 'e.id', 's.environmentId').leftJoin('deployments as d', 'd.serviceId', 's.id')
        .groupBy('s.id', 'e.name', 's.name', 's.conditions')
        .select('e.name as environment', 's.name as service', this.db.raw(`(s.conditions @> ${READY}) as ready`),
          this.db.raw(`coalesce(bool_or(d.conditions @> ${DRIFTED}), false) as drifted`)) as Promise<ServiceSeries[]>,
      this.db('servers as v').join('environments as e', 'e.id', 'v.environmentId').leftJoin('deployments as d', 'd.serverId', 'v.id')
        .groupBy('v.id', 'e.name', 'v.name', 'v.conditions')
        .select('e.name as environment', 'v.name as server', this.db.raw(`(v.conditions @> ${READY}) as ready`),
          this.db.raw(`count(d.id) filter (where d.conditions @> ${DRIFTED})::int as "driftedDeployments"`)) as Promise<ServerSeries[]>,
      this.db('deployments as d').join('environments as e', 'e.id', 'd.environmentId').join('services as s', 's.id', 'd.serviceId')
        .join('servers as v', 'v.id', 'd.serverId').where('d.status', 'running').whereNotNull('d.imageTag')
        .select('e.name as environment', 's.name as service', 'v.name as server', 'd.containerName as container', 'd.imageTag as tag') as Promise<RunningSeries[]>,
    ]);
    return { services, servers, running };
  }

  async namesOf(serviceIds: string[]): Promise<ServiceNames[]> {
    if (!serviceIds.length) return [];
    return this.db('services as s').join('environments as e', 'e.id', 's.environmentId').whereIn('s.id', serviceIds)
      .select('s.id', 'e.name as environment', 's.name as service');
  }
}
