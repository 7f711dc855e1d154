// Exec: a command in a deployment's running container (docs/exec.md). Operators and above, in an
// environment whose operations.allowExec is on; every session is one audit entry that names the
// caller, the container, the command, when it ended and its exit code, never its output.
import type { Services } from '../../controller/services.js';
import { forbiddenScope } from '../../controller/errors/app-error.js';
import { EXEC_DEFAULT_TIMEOUT_SEC, EXEC_MAX_OUTPUT_BYTES, EXEC_MAX_TIMEOUT_SEC, execCollect, execTarget } from '../../controller/deploy/container-exec.js';
import { route } from '../http/route.js';
import { arrayOf, bool, int, nullable, object, str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { serviceDeploymentOf } from './deploy-loaders.js';

/** A command: an argument vector as Docker's exec takes it (no shell reads it). */
export const commandSchema = arrayOf(str({ minLength: 1, maxLength: 8192, pattern: '^[^\\u0000]*$' }), { minItems: 1, maxItems: 256 });

/** 403 for everyone, admins too, in an environment whose operations.allowExec is off. */
export async function assertExecAllowed(s: Pick<Services, 'settings'>, environmentId: string): Promise<void> {
  const ops = await s.settings.get<{ allowExec?: boolean }>(environmentId, 'operations');
  if (ops.allowExec === false) {
    throw forbiddenScope('Exec is turned off in this environment (setting operations.allowExec is false)',
      'An admin of the environment can set operations.allowExec to true in its settings');
  }
}

/** The service and deployment of the path, once exec is known to be allowed in their environment. */
export const execDeploymentOf = (s: Services) => async (ctx: Ctx, params: Record<string, string>) => {
  const pair = await serviceDeploymentOf(s)(ctx, params);
  await assertExecAllowed(s, pair.service.environmentId);
  return pair;
};

export default function execRoutes(s: Services) {
  return [
    route<{ command: string[]; timeoutSec?: number }>({
      method: 'POST', path: '/api/services/{id}/deployments/{depId}/exec', operationId: 'execServiceDeployment', tag: 'services',
      access: 'operator', summary: "Run a command in the deployment's running container and answer its output and exit code",
      description: `No TTY and no stdin; stdout and stderr together, the first ${EXEC_MAX_OUTPUT_BYTES} bytes (truncated says when more was dropped). `
        + `After timeoutSec (default ${EXEC_DEFAULT_TIMEOUT_SEC}) the answer has exitCode null and timedOut true: the process may still run. `
        + '403 when the environment\'s operations.allowExec is false (for admins too); 409 when the deployment has no running container of its own. '
        + 'Audited with the caller, container, command, end and exit code; never the output.',
      load: execDeploymentOf(s), errors: [403, 409, 503],
      body: object({ command: commandSchema, timeoutSec: int(1, EXEC_MAX_TIMEOUT_SEC) }, ['command']),
      response: object({ exitCode: nullable(int()), output: str(), truncated: bool, timedOut: bool }, ['exitCode', 'output', 'truncated', 'timedOut']),
      async handler(ctx, { resource, body }) {
        const d = resource.deployment;
        const docker = await s.hosts.docker(d.serverId);
        const target = await execTarget(docker, d);
        const startedAt = new Date();
        const r = await execCollect(docker, target.containerId, body.command, { timeoutSec: body.timeoutSec });
        ctx.state.audit = {
          resourceType: 'deployments', resourceId: d.id, environmentId: d.environmentId,
          details: {
            serviceId: d.serviceId, serverId: d.serverId, containerName: target.containerName, containerId: target.containerId,
            command: body.command, interactive: false, startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
            exitCode: r.exitCode, timedOut: r.timedOut,
          },
        };
        return r;
      },
    }),
  ];
}
