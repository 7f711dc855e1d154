import type { Services } from '../../controller/services.js';
import { toService, type ServiceRow, type ServiceSpec } from '../../controller/store/repositories/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { resolveCommands } from '../../controller/catalog/resolve-commands.js';
import { TYPE_NAME_PATTERN } from '../../controller/catalog/validators.js';
import { route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, listOf, nullable, object, paginationQuery, str, uuid } from '../http/schema.js';
import { service } from '../../controller/kinds/service.js';
import { checkServiceSpec } from './catalog-checks.js';
import { environmentOf, rowOf } from './loaders.js';
import { changeServiceSpec } from '../../reconcilers/entrance.js';
import { syncPlacements } from '../../reconcilers/service/placement.js';
import { labelSelectorOf, labelSelectorQuery } from '../http/label-selector.js';
import { ingressStatus } from '../../reconcilers/proxy/ingress-status.js';
import { INGRESS_CHANGED } from '../../controller/model/ingress.js';

const serviceSchemas = service.schemas!;

type ListQuery = { limit: number; offset: number; type?: string; containerImageId?: string; labelSelector?: string };

/** Groups deployments by service so a list read costs two queries, not one per service. */
function withDeployments(services: ServiceRow[], deployments: DeploymentRow[]) {
  const by = new Map<string, DeploymentRow[]>();
  for (const d of deployments) by.set(d.serviceId, [...(by.get(d.serviceId) ?? []), d]);
  return services.map((svc) => toService(svc, by.get(svc.id) ?? []));
}

// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): a service's spec is written
// by the entrance (reconcilers/entrance.ts), a revision and a plan, never by a row update.
export default function serviceRoutes(s: Services) {
  const env = environmentOf(s);
  const load = rowOf(s.services, 'Service');
  return [
    route<unknown, ListQuery>({
      method: 'GET', path: '/api/environments/{envId}/services', operationId: 'listServices', tag: 'services', access: 'viewer',
      summary: 'Service templates of an environment, by name, each with its deployments; filter by type, image or labelSelector (services whose serverSelector asks for every pair)',
      load: env, query: { ...paginationQuery, type: str({ pattern: TYPE_NAME_PATTERN }), containerImageId: uuid, labelSelector: labelSelectorQuery },
      response: listOf(serviceSchemas.read),
      async handler(_ctx, { resource, query }) {
        const page = await s.services.listFiltered({
          environmentId: resource.id, type: query.type, containerImageId: query.containerImageId, selecting: labelSelectorOf(query.labelSelector),
        }, query);
        const deployments = await s.deployments.listByServices(page.items.map((x) => x.id));
        return { ...page, items: withDeployments(page.items, deployments) };
      },
    }),

    route<ServiceSpec>({
      method: 'POST', path: '/api/environments/{envId}/services', operationId: 'createService', tag: 'services', access: 'operator',
      summary: 'Create a service template', load: env, body: serviceSchemas.create, readOnly: serviceSchemas.readOnly,
      status: 201, response: serviceSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await checkServiceSpec(s, resource.id, body);
        const row = await s.services.create(resource.id, body);
        ctx.state.audit = { resourceId: row.id, details: { name: row.name, fields: Object.keys(body) } };
        // placed by selector: a deployment on every matching server (containers come with the first deploy)
        if (row.serverSelector) await syncPlacements(s, resource.id, [row.id]);
        const deployments = await s.deployments.listByService(row.id);
        if (row.ingress) await s.events.publish(INGRESS_CHANGED, row.environmentId, { serviceId: row.id });
        return toService(row, deployments);
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/services/count-by-type', operationId: 'countServicesByType', tag: 'services',
      access: 'viewer', summary: 'How many services of each type (type null: untyped)', load: env,
      response: object({ total: int(0), counts: arrayOf(object({ type: nullable(str()), count: int(0) })) }),
      async handler(_ctx, { resource }) {
        const counts = await s.services.countByType(resource.id);
        return { total: counts.reduce((n, c) => n + c.count, 0), counts };
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}', operationId: 'getService', tag: 'services', access: 'viewer',
      summary: 'One service template with its deployments', load, response: serviceSchemas.read,
      handler: async (_ctx, { resource }) => toService(resource, await s.deployments.listByService(resource.id),
        (await s.settings.get<{ driftPolicy: string }>(resource.environmentId, 'operations')).driftPolicy),
    }),

    route<ServiceSpec, unknown, ServiceRow>({
      method: 'PATCH', path: '/api/services/{id}', operationId: 'updateService', tag: 'services', access: 'operator',
      summary: 'Change a service template; a change of any spec field bumps its generation',
      description: 'A change of what its containers should be (image, tag, env, ports, volumes, command, healthcheck, template, update order, restart policy) '
        + 'on a service that runs somewhere is a request like a deploy: a new revision and a plan over its deployments that run.',
      load,
      body: serviceSchemas.update, readOnly: serviceSchemas.readOnly, response: serviceSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await checkServiceSpec(s, resource.environmentId, body, resource);
        const { row, changed, plan } = await changeServiceSpec(s, resource, body, ctx.state.actor!.name);
        const placement = changed.includes('serverSelector') && row.serverSelector ? await syncPlacements(s, row.environmentId, [row.id]) : null;
        ctx.state.audit = { details: { name: row.name, changed, generation: row.generation, planId: plan?.id ?? null, ...(placement && { placementPlanIds: placement.planIds }) } };
        const deployments = await s.deployments.listByService(row.id);
        // the route table of its servers' proxies changes with it
        if (changed.includes('ingress')) await s.events.publish(INGRESS_CHANGED, row.environmentId, { serviceId: row.id });
        return toService(row, deployments);
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'DELETE', path: '/api/services/{id}', operationId: 'deleteService', tag: 'services', access: 'operator',
      summary: 'Delete a service template, its deployments and its dependency edges', load, status: 204,
      async handler(ctx, { resource }) {
        const deployments = await s.transaction(async (trx) => {
          const deps = await s.deployments.listByService(resource.id, trx);
          await s.services.delete(resource.id, trx);
          for (const d of deps) {
            await s.events.publish('deployment.updated', resource.environmentId,
              { action: 'deleted', deploymentId: d.id, serviceId: d.serviceId, serverId: d.serverId, containerName: d.containerName }, trx);
          }
          return deps;
        });
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name, deployments: deployments.length } };
        if (resource.ingress) await s.events.publish(INGRESS_CHANGED, resource.environmentId, { serviceId: resource.id, serverIds: deployments.map((d) => d.serverId) });
        return undefined;
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/ingress', operationId: 'getServiceIngress', tag: 'services', access: 'viewer',
      summary: 'Per ingress host: its certificate, and per server that runs the service whether its proxy routes it (observed in the live config now)',
      description: 'docs/ingress.md. A service without an ingress answers no hosts. The private key of a certificate is never part of it.',
      load,
      response: object({
        hosts: arrayOf(object({
          host: str(),
          certificate: object({
            state: enumOf('none', 'pending', 'issued', 'failed'), issuer: nullable(str()), notAfter: nullable(str({ format: 'date-time' })), error: nullable(str()),
          }, ['state', 'issuer', 'notAfter', 'error']),
          servers: arrayOf(object({ serverId: uuid, serverName: str(), routed: bool, message: nullable(str()) }, ['serverId', 'serverName', 'routed', 'message'])),
        }, ['host', 'certificate', 'servers'])),
      }, ['hosts']),
      handler: (_ctx, { resource }) => ingressStatus(s, resource),
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/commands', operationId: 'getServiceCommands', tag: 'services', access: 'viewer',
      summary: "The predefined commands of the service's type, resolved to argument arrays per deployment", load,
      response: object({
        serviceId: uuid, type: nullable(str()), commands: arrayOf({ type: 'object' }),
        deployments: arrayOf(object({ deploymentId: uuid, serverId: uuid, containerName: str(), commands: arrayOf({ type: 'object' }) })),
      }),
      async handler(_ctx, { resource }) {
        const type = resource.type ? await s.serviceTypes.findByName(resource.type) : undefined;
        const commands = type?.commands ?? [];
        const deployments = await s.deployments.listByService(resource.id);
        return {
          serviceId: resource.id, type: resource.type, commands,
          deployments: deployments.map((d) => ({
            deploymentId: d.id, serverId: d.serverId, containerName: d.containerName,
            commands: resolveCommands(commands, d.containerName),
          })),
        };
      },
    }),
  ];
}
