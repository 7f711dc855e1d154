// Drift reports: the deployment reconciler's plan(desired, actual) per deployment, not applied.
import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { driftOf, driftReport } from '../../reconcilers/deployment/drift.js';
import { route } from '../http/route.js';
import { environmentOf } from './loaders.js';

export default function driftRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/servers/{id}/drift', operationId: 'getServerDrift', tag: 'servers', access: 'viewer',
      summary: 'What differs between the desired and the running deployments of a server',
      load: async (_ctx, p) => {
        const row = await s.servers.findById(p.id);
        if (!row) throw notFound('Server');
        return row;
      },
      async handler(_ctx, { resource }) {
        const deployments = await s.deployments.listByServer(resource.id);
        return { serverId: resource.id, ...driftReport(await driftOf(s, deployments)) };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/drift', operationId: 'getEnvironmentDrift', tag: 'environments', access: 'viewer',
      summary: 'Drift of every deployment of an environment', load: environmentOf(s),
      async handler(_ctx, { params }) {
        const deployments = await s.deployments.listByEnvironment(params.envId);
        const ops = await s.settings.get<{ driftPolicy: string }>(params.envId, 'operations');
        return { environmentId: params.envId, driftPolicy: ops.driftPolicy, ...driftReport(await driftOf(s, deployments)) };
      },
    }),
  ];
}
