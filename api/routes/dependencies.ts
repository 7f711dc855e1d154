import { lockUntilCommit, type Trx } from '../../controller/store/transaction.js';
import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import { assertNoCycleIfAdded, dependencyCandidates, dependencyLevels } from '../../controller/catalog/dependency-order.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { toServiceDependency, type ServiceDependencyRow } from '../../controller/store/repositories/service-dependencies.js';
import { route } from '../http/route.js';
import { arrayOf, int, nullable, object, str, timestamp, uuid } from '../http/schema.js';
import { environmentOf, rowOf } from './loaders.js';
import type { Ctx } from '../http/types.js';

const dependencySchema = object({
  id: uuid, serviceId: uuid, dependsOnServiceId: uuid, createdAt: timestamp,
  service: nullable(object({ id: uuid, name: str(), type: nullable(str()) }, ['id', 'name', 'type'])),
});
const brief = (svc: ServiceRow | undefined) => (svc ? { id: svc.id, name: svc.name, type: svc.type } : null);

export default function dependencyRoutes(s: Services) {
  const env = environmentOf(s);
  const loadService = rowOf(s.services, 'Service');
  // with its service's environment, which the per-environment role check reads
  const loadDependency = async (ctx: Ctx, params: Record<string, string>) => {
    const row = await rowOf(s.serviceDependencies, 'Dependency')(ctx, params);
    const svc = await s.services.findById(row.serviceId);
    return { ...row, environmentId: svc?.environmentId ?? null };
  };
  const graphOf = async (environmentId: string, trx?: Trx) => {
    const [nodes, edges] = await Promise.all([
      s.services.listByEnvironment(environmentId, trx),
      s.serviceDependencies.listByEnvironment(environmentId, trx),
    ]);
    return { nodes, edges };
  };

  return [
    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/dependencies', operationId: 'listServiceDependencies', tag: 'dependencies',
      access: 'viewer', summary: 'What the service depends on (deploys first) and what depends on it', load: loadService,
      response: object({ dependencies: arrayOf(dependencySchema), dependents: arrayOf(dependencySchema) }),
      async handler(_ctx, { resource }) {
        const [deps, dependents] = await Promise.all([
          s.serviceDependencies.listDependencies(resource.id),
          s.serviceDependencies.listDependents(resource.id),
        ]);
        const names = new Map((await s.services.listByIds([...deps.map((d) => d.dependsOnServiceId), ...dependents.map((d) => d.serviceId)]))
          .map((x) => [x.id, x]));
        const show = (d: ServiceDependencyRow, other: string) => ({ ...toServiceDependency(d), service: brief(names.get(other)) });
        return {
          dependencies: deps.map((d) => show(d, d.dependsOnServiceId)),
          dependents: dependents.map((d) => show(d, d.serviceId)),
        };
      },
    }),

    route<{ dependsOnServiceId: string }, unknown, ServiceRow>({
      method: 'POST', path: '/api/services/{id}/dependencies', operationId: 'addServiceDependency', tag: 'dependencies',
      access: 'operator', summary: 'Make the service depend on another of its environment; a cycle is a VALIDATION_ERROR naming it',
      load: loadService, body: object({ dependsOnServiceId: uuid }, ['dependsOnServiceId']), status: 201,
      response: dependencySchema, errors: [409],
      async handler(ctx, { resource, body }) {
        const target = await s.services.findById(body.dependsOnServiceId);
        if (!target || target.environmentId !== resource.environmentId) {
          throw validationError('dependsOnServiceId names no service of this environment', 'dependsOnServiceId');
        }
        const row = await s.transaction(async (trx) => {
          // One writer per environment graph at a time, so two concurrent edges cannot close a cycle together.
          await lockUntilCommit(trx, `service-graph:${resource.environmentId}`);
          const { nodes, edges } = await graphOf(resource.environmentId, trx);
          assertNoCycleIfAdded(nodes, edges, { serviceId: resource.id, dependsOnServiceId: target.id });
          return s.serviceDependencies.create(resource.id, target.id, trx);
        });
        ctx.state.audit = { resourceId: row.id, environmentId: resource.environmentId, details: { serviceId: resource.id, dependsOnServiceId: target.id } };
        return { ...toServiceDependency(row), service: brief(target) };
      },
    }),

    route<unknown, unknown, ServiceDependencyRow & { environmentId: string | null }>({
      method: 'DELETE', path: '/api/dependencies/{id}', operationId: 'deleteServiceDependency', tag: 'dependencies',
      access: 'operator', summary: 'Remove a dependency between two services', load: loadDependency, status: 204,
      async handler(ctx, { resource }) {
        await s.serviceDependencies.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { serviceId: resource.serviceId, dependsOnServiceId: resource.dependsOnServiceId } };
        return undefined;
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/dependencies/candidates', operationId: 'listDependencyCandidates', tag: 'dependencies',
      access: 'viewer', summary: 'Services this one could depend on without a cycle (not itself, not already a dependency)', load: loadService,
      response: object({ items: arrayOf(object({ id: uuid, name: str(), type: nullable(str()) })), total: int(0) }),
      async handler(_ctx, { resource }) {
        const { nodes, edges } = await graphOf(resource.environmentId);
        const items = dependencyCandidates(nodes, edges, resource.id).map((n) => brief(n)!);
        return { items, total: items.length };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/dependency-graph', operationId: 'getDependencyGraph', tag: 'dependencies',
      access: 'viewer', load: env,
      summary: 'Services (nodes, with their deployment level), dependency edges and the computed deployment order (service ids)',
      response: object({
        nodes: arrayOf(object({ id: uuid, name: str(), type: nullable(str()), level: int(0) })),
        edges: arrayOf(object({ id: uuid, serviceId: uuid, dependsOnServiceId: uuid })),
        order: arrayOf(uuid), levels: arrayOf(arrayOf(uuid)),
      }),
      async handler(_ctx, { resource }) {
        const { nodes, edges } = await graphOf(resource.id);
        const levels = dependencyLevels(nodes, edges);
        const levelOf = new Map(levels.flatMap((l, i) => l.map((n) => [n.id, i] as const)));
        return {
          nodes: nodes.map((n) => ({ ...brief(n)!, level: levelOf.get(n.id)! })),
          edges: edges.map((e) => ({ id: e.id, serviceId: e.serviceId, dependsOnServiceId: e.dependsOnServiceId })),
          order: levels.flat().map((n) => n.id),
          levels: levels.map((l) => l.map((n) => n.id)),
        };
      },
    }),
  ];
}
