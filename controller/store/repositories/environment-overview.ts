import type { Knex } from 'knex';

/** A server as the overview shows it: health and conditions, no connection details. */
export interface OverviewServer {
  id: string; name: string; hostname: string; labels: Record<string, string>; status: string | null; message: string | null; checkedAt: Date | null; conditions: unknown[];
}
export interface OverviewDeployment {
  deploymentId: string; serverId: string; serverName: string; containerName: string; status: string;
  /** The tag the container was last seen running (the desired one is the service's). */
  runningTag: string | null; conditions: unknown[];
}
export interface OverviewService {
  id: string; name: string; desiredTag: string | null; serverSelector: { matchLabels: Record<string, string> } | null; conditions: unknown[]; deployments: OverviewDeployment[];
}
export interface OverviewPlan { id: string; name: string; status: string; error: string | null; createdAt: Date; finishedAt: Date | null }
export interface OverviewNotification { id: string; type: string; title: string | null; message: string | null; createdAt: Date }

/**
 * Everything the dashboard's overview of one environment shows, in five set-based queries run
 * together (servers, services, deployments, recent plans, the user's unread notifications)
 * instead of one HTTP request per listing page.
 */
export class EnvironmentOverview {
  constructor(private readonly db: Knex) {}

  async of(environmentId: string, userId: string | null, planLimit = 10, notificationLimit = 10) {
    const unread = () => this.db('notifications').where({ userId, environmentId }).whereNull('readAt');
    const [servers, services, deployments, plans, notes, [{ count }]] = await Promise.all([
      this.db('servers').where({ environmentId }).orderBy('name')
        .select('id', 'name', 'hostname', 'labels', 'healthStatus as status', 'healthMessage as message', 'healthCheckedAt as checkedAt', 'conditions') as Promise<OverviewServer[]>,
      this.db('services').where({ environmentId }).orderBy('name')
        .select('id', 'name', 'imageTag as desiredTag', 'serverSelector', 'conditions') as Promise<Array<Omit<OverviewService, 'deployments'>>>,
      this.db('deployments').join('servers', 'servers.id', 'deployments.serverId')
        .where('deployments.environmentId', environmentId).orderBy('deployments.containerName')
        .select('deployments.serviceId', 'deployments.id as deploymentId', 'deployments.serverId', 'servers.name as serverName',
          'deployments.containerName', 'deployments.status', 'deployments.imageTag as runningTag', 'deployments.conditions') as Promise<Array<OverviewDeployment & { serviceId: string }>>,
      this.db('deployment_plans').where({ environmentId }).orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id' }]).limit(planLimit)
        .select('id', 'name', 'status', 'error', 'createdAt', 'finishedAt') as Promise<OverviewPlan[]>,
      // a token (no user) has no inbox: both notification queries answer nothing
      userId ? unread().orderBy([{ column: 'createdAt', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(notificationLimit)
        .select('id', 'type', 'title', 'message', 'createdAt') as Promise<OverviewNotification[]> : Promise.resolve([]),
      (userId ? unread().count({ count: '*' }) : Promise.resolve([{ count: 0 }])) as Promise<Array<{ count: string | number }>>,
    ]);
    const byService = new Map<string, OverviewDeployment[]>();
    for (const { serviceId, ...d } of deployments) {
      const list = byService.get(serviceId) ?? [];
      list.push(d);
      byService.set(serviceId, list);
    }
    return {
      servers: servers.map((s) => ({ ...s, conditions: s.conditions ?? [] })),
      services: services.map((s) => ({ ...s, conditions: s.conditions ?? [], deployments: byService.get(s.id) ?? [] })),
      plans,
      notifications: { unread: Number(count), items: notes },
    };
  }
}
