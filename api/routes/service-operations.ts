import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { toService, type ServiceRow, type ServiceSpec } from '../../controller/store/repositories/services.js';
import { toDeployment } from '../../controller/store/repositories/deployments.js';
import { toHistoryRecord } from '../../controller/store/repositories/plan-steps.js';
import { refreshStatus } from '../../reconcilers/deployment/refresh-status.js';
import { deploymentSchemas, service } from '../../controller/kinds/service.js';
import { route } from '../http/route.js';
import { arrayOf, bool, nullable, object, str, timestamp, uuid, type Schema } from '../http/schema.js';
import { checkDeploymentSpec, checkServiceSpec } from './catalog-checks.js';
import { historyRecordRead } from './plan-schemas.js';
import { serviceOf } from './deploy-loaders.js';
import { environmentOf } from './loaders.js';

const serviceSchemas = service.schemas!;
const deploymentFields = deploymentSchemas.create.properties as Record<string, Schema>;

type LegacyBody = ServiceSpec & { serverId: string; containerName?: string; composePath?: string | null };

const refreshedRead = object({
  serviceId: uuid, refreshedAt: timestamp,
  deployments: arrayOf(object({
    ...(deploymentSchemas.read.properties as Record<string, Schema>),
    drifted: nullable(bool), reasons: arrayOf(str()), error: str(),
  })),
});

/** Service operations beyond the template CRUD: legacy one-call create, status refresh, one history record. */
export default function serviceOperationRoutes(s: Services) {
  const loadService = serviceOf(s);
  return [
    route<LegacyBody>({
      method: 'POST', path: '/api/environments/{envId}/services/with-deployment', operationId: 'createServiceWithDeployment',
      tag: 'services', access: 'operator', load: environmentOf(s), status: 201, response: serviceSchemas.read, errors: [409],
      summary: 'Legacy create: a service template and its one deployment in one call (containerName defaults to the name). '
        + 'Nothing is deployed until POST /api/services/{id}/deploy',
      body: object({
        ...(serviceSchemas.create.properties as Record<string, Schema>),
        serverId: deploymentFields.serverId, containerName: deploymentFields.containerName, composePath: deploymentFields.composePath,
      }, [...((serviceSchemas.create.required as string[]) ?? []), 'serverId']),
      readOnly: serviceSchemas.readOnly,
      async handler(ctx, { resource, body }) {
        const { serverId, containerName, composePath, ...spec } = body;
        const placement = { serverId, containerName: containerName ?? spec.name!, ...(composePath !== undefined && { composePath }) };
        await checkServiceSpec(s, resource.id, spec);
        await checkDeploymentSpec(s, resource.id, placement);
        const { row, deployment } = await s.transaction(async (trx) => {
          const created = await s.services.create(resource.id, spec, trx);
          const dep = await s.deployments.create(created.id, resource.id, placement, trx);
          await s.events.publish('deployment.updated', resource.id, {
            action: 'created', deploymentId: dep.id, serviceId: created.id, serverId: dep.serverId, containerName: dep.containerName,
            generation: dep.generation, status: dep.status,
          }, trx);
          return { row: created, deployment: dep };
        });
        ctx.state.audit = {
          resourceType: 'services', resourceId: row.id,
          details: { name: row.name, deploymentId: deployment.id, serverId, containerName: deployment.containerName },
        };
        return toService(row, [deployment]);
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'POST', path: '/api/services/{id}/refresh-status', operationId: 'refreshServiceStatus', tag: 'services',
      access: 'operator', load: loadService, body: object({}), response: refreshedRead,
      summary: "Observe every deployed container of the service now (as the reconciler does on a Docker event) and record its "
        + "status and conditions; drifted null with error when a server could not be asked. Never redeploys",
      async handler(ctx, { resource }) {
        const before = await s.deployments.listByService(resource.id);
        const refreshed = await refreshStatus(s, before);
        const after = await s.deployments.listByService(resource.id);
        const { driftPolicy } = await s.settings.get<{ driftPolicy: string }>(resource.environmentId, 'operations');
        ctx.state.audit = {
          resourceType: 'services', environmentId: resource.environmentId,
          details: { deployments: refreshed.length, drifted: refreshed.filter((r) => r.drifted).length, unreachable: refreshed.filter((r) => r.drifted === null).length },
        };
        return {
          serviceId: resource.id, refreshedAt: new Date().toISOString(),
          deployments: after.map((d) => {
            const r = refreshed.find((x) => x.deploymentId === d.id);
            return { ...toDeployment(d, driftPolicy), drifted: r ? r.drifted : false, reasons: r?.reasons ?? [], ...(r?.error && { error: r.error }) };
          }),
        };
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/deployments-history/{recordId}', operationId: 'getServiceDeploymentRecord',
      tag: 'services', access: 'viewer', load: loadService, errors: [404],
      summary: 'One record of the deployment history: the deploy step with its log, error, timings and its plan',
      response: historyRecordRead,
      async handler(_ctx, { resource, params }) {
        const r = await s.plans.steps.historyRecord(resource.id, params.recordId);
        if (!r) throw notFound('Deployment record');
        return toHistoryRecord(r);
      },
    }),
  ];
}
