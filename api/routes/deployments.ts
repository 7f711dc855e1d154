import { assertVolumePlacement } from '../../controller/volumes/volume-placement.js';
import type { Services } from '../../controller/services.js';
import { conflict, notFound } from '../../controller/errors/app-error.js';
import { formatLabels } from '../../controller/placement/labels.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { toDeployment, type DeploymentRow, type DeploymentSpec } from '../../controller/store/repositories/deployments.js';
import { route } from '../http/route.js';
import { listOf, paginationQuery } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { deploymentSchemas } from '../../controller/kinds/service.js';
import { checkDeploymentSpec } from './catalog-checks.js';
import { rowOf } from './loaders.js';

type Loaded = { service: ServiceRow; deployment: DeploymentRow };

export default function deploymentRoutes(s: Services) {
  const loadService = rowOf(s.services, 'Service');
  /** The service, then the deployment, which must belong to it. */
  const loadDeployment = async (ctx: Ctx, params: Record<string, string>): Promise<Loaded> => {
    const service = await loadService(ctx, params);
    const deployment = await s.deployments.findById(params.depId);
    if (!deployment || deployment.serviceId !== service.id) throw notFound('Deployment');
    return { service, deployment };
  };
  const publish = (action: string, d: DeploymentRow, trx?: Parameters<typeof s.events.publish>[3]) =>
    s.events.publish('deployment.updated', d.environmentId, {
      action, deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName,
      generation: d.generation, status: d.status,
    }, trx);

  return [
    route<unknown, { limit: number; offset: number }, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/deployments', operationId: 'listDeployments', tag: 'deployments', access: 'viewer',
      summary: 'Deployments of a service (one per server and container)', load: loadService, query: paginationQuery,
      response: listOf(deploymentSchemas.read),
      async handler(_ctx, { resource, query }) {
        const page = await s.deployments.list({ serviceId: resource.id }, query, 'containerName');
        const { driftPolicy } = await s.settings.get<{ driftPolicy: string }>(resource.environmentId, 'operations');
        return { ...page, items: page.items.map((d) => toDeployment(d, driftPolicy)) };
      },
    }),

    route<Required<Pick<DeploymentSpec, 'serverId' | 'containerName'>> & DeploymentSpec, unknown, ServiceRow>({
      method: 'POST', path: '/api/services/{id}/deployments', operationId: 'createDeployment', tag: 'deployments', access: 'operator',
      summary: 'Place a service on a server of its environment as one container', load: loadService,
      body: deploymentSchemas.create, readOnly: deploymentSchemas.readOnly, status: 201, response: deploymentSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        if (resource.serverSelector) {
          throw conflict(`${resource.name} is placed by serverSelector (${formatLabels(resource.serverSelector.matchLabels)}): its deployments follow the servers' labels`,
            'Label the server instead, or clear serverSelector to place the service by hand', 'serverSelector');
        }
        await checkDeploymentSpec(s, resource.environmentId, body);
        await assertVolumePlacement(s, resource.environmentId, resource.volumes, [body.serverId], 'serverId');
        const row = await s.transaction(async (trx) => {
          const created = await s.deployments.create(resource.id, resource.environmentId, body, trx);
          await publish('created', created, trx);
          return created;
        });
        ctx.state.audit = { resourceId: row.id, environmentId: row.environmentId, details: { serviceId: resource.id, serverId: row.serverId, containerName: row.containerName } };
        return toDeployment(row);
      },
    }),

    route<DeploymentSpec, unknown, Loaded>({
      method: 'PATCH', path: '/api/services/{id}/deployments/{depId}', operationId: 'updateDeployment', tag: 'deployments',
      access: 'operator', summary: 'Move, rename or re-path a deployment; observed fields (exposedPorts, status, ...) are read-only',
      load: loadDeployment, body: deploymentSchemas.update, readOnly: deploymentSchemas.readOnly, response: deploymentSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await checkDeploymentSpec(s, resource.service.environmentId, body);
        if (body.serverId) await assertVolumePlacement(s, resource.service.environmentId, resource.service.volumes, [body.serverId], 'serverId');
        const { row, changed } = await s.transaction(async (trx) => {
          const out = await s.deployments.updateSpec(resource.deployment, body, trx);
          if (out.changed.length) await publish('updated', out.row, trx);
          return out;
        });
        ctx.state.audit = { resourceId: row.id, environmentId: row.environmentId, details: { serviceId: row.serviceId, changed, generation: row.generation } };
        return toDeployment(row);
      },
    }),

    route<unknown, unknown, Loaded>({
      method: 'DELETE', path: '/api/services/{id}/deployments/{depId}', operationId: 'deleteDeployment', tag: 'deployments',
      access: 'operator', summary: 'Remove a deployment record (the container on the server is left alone)', load: loadDeployment, status: 204,
      async handler(ctx, { resource }) {
        const d = resource.deployment;
        await s.transaction(async (trx) => {
          await s.deployments.delete(d.id, trx);
          await publish('deleted', d, trx);
        });
        ctx.state.audit = { resourceId: d.id, environmentId: d.environmentId, details: { serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName } };
        return undefined;
      },
    }),
  ];
}
