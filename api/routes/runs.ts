// One-off runs (docs/exec.md#one-off-runs): a container from the service's current revision with
// another command, on one of the servers it runs on; answered at once (202), watched to its end.
// Operators and above, in an environment whose operations.allowExec is on (a run can read what
// an exec can: the service's env and secrets). Audited when it starts and when it ends (who, the
// service, the server, the command, the exit code), never its output.
import type { Services } from '../../controller/services.js';
import { conflict, notFound, validationError } from '../../controller/errors/app-error.js';
import type { ServiceRunRow } from '../../controller/store/repositories/service-runs.js';
import { startRun } from '../../reconcilers/run/run-container.js';
import { result, route } from '../http/route.js';
import { enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid } from '../http/schema.js';
import { assertExecAllowed, commandSchema } from './exec.js';
import { serviceOf } from './deploy-loaders.js';

const runSchema = object({
  id: uuid, serviceId: uuid, serverId: nullable(uuid), containerName: str(), command: { type: 'array', items: str() },
  status: enumOf('running', 'succeeded', 'failed'), exitCode: nullable(int()), logTail: str(), reason: nullable(str()),
  createdBy: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
}, ['id', 'serviceId', 'serverId', 'containerName', 'command', 'status', 'exitCode', 'logTail', 'reason', 'createdBy', 'startedAt', 'finishedAt']);

const toRun = (r: ServiceRunRow) => ({
  id: r.id, serviceId: r.serviceId, serverId: r.serverId, containerName: r.containerName, command: r.command, status: r.status,
  exitCode: r.exitCode, logTail: r.logTail, reason: r.reason, createdBy: r.createdBy, startedAt: r.startedAt, finishedAt: r.finishedAt,
});

export default function runRoutes(s: Services) {
  return [
    route<{ command: string[]; serverId?: string }>({
      method: 'POST', path: '/api/services/{id}/run', operationId: 'runService', tag: 'services', access: 'operator',
      summary: "Start a one-off run: a container from the service's current revision with the given command (202 {runId})",
      description: 'The container has the image, env, secrets, config files and volumes of the service\'s current revision on the server, '
        + 'the container policy applies, and another name and labels (stevedore.run): it is never the service\'s container. '
        + 'serverId: one of the servers the service runs on (default the first of them). Watch it with GET /api/runs/{id}; '
        + 'its container is removed when it ends. 403 when the environment\'s operations.allowExec is false.',
      load: serviceOf(s), status: 202, errors: [403, 409],
      body: object({ command: commandSchema, serverId: uuid }, ['command']),
      response: object({ runId: uuid }, ['runId']),
      async handler(ctx, { resource: service, body }) {
        await assertExecAllowed(s, service.environmentId);
        const all = await s.deployments.listByServiceInServerOrder(service.id);
        const chosen = body.serverId ? all.find((d) => d.serverId === body.serverId) : all.find((d) => d.imageTag !== null);
        if (body.serverId && !chosen) {
          throw validationError(`server ${body.serverId} is not one of the servers service ${service.name} runs on`, 'serverId');
        }
        if (!chosen || chosen.imageTag === null) {
          throw conflict(`service ${service.name} is not deployed${chosen ? ` on server ${chosen.serverName}` : ' on any server'}`, 'Deploy the service first');
        }
        const deployment = chosen;
        const run = await startRun(s, { service, deployment, command: body.command, actor: ctx.state.actor });
        ctx.state.audit = {
          resourceType: 'services', resourceId: service.id, environmentId: service.environmentId,
          details: { runId: run.id, serverId: run.serverId, containerName: run.containerName, command: run.command },
        };
        return result(202, { runId: run.id });
      },
    }),
    route({
      method: 'GET', path: '/api/runs/{id}', operationId: 'getRun', tag: 'services', access: 'viewer',
      summary: 'A one-off run: its status (running, succeeded, failed), exit code, the tail of its output, when it started and ended',
      description: 'A run whose controller stopped watching it (restarted or died) is failed with the reason, never left running.',
      load: async (_ctx, p) => {
        await s.serviceRuns.failStale(undefined, [p.id].filter((id) => /^[0-9a-f-]{36}$/i.test(id)));
        const row = await s.serviceRuns.findById(p.id);
        if (!row) throw notFound('Run');
        return row;
      },
      response: runSchema,
      handler: async (_ctx, { resource }) => toRun(resource as ServiceRunRow),
    }),
  ];
}
