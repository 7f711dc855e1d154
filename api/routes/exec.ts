// Exec: a command in a deployment's running container (docs/exec.md). Operators and above, in an
// environment whose operations.allowExec is on; every session is one audit entry that names the
// caller, the container, the command, when it ended and its exit code, never its output.
import { execAllowed } from '../../controller/auth/exec-allowed.js';
import type { Services } from '../../controller/services.js';
import { forbiddenScope } from '../../controller/errors/app-error.js';
import { EXEC_DEFAULT_TIMEOUT_SEC, EXEC_MAX_OUTPUT_BYTES, EXEC_MAX_TIMEOUT_SEC, execCollect, execTarget, execTty } from '../../controller/deploy/container-exec.js';
import { authenticateToken } from '../../controller/auth/authenticate-token.js';
import { recordRequest } from '../http/audit-request.js';
import { authorize, authorizeResource } from '../http/authorize.js';
import { route, type RouteSpec } from '../http/route.js';
import { acceptWebSocket, assertUpgrade, EXEC_PROTOCOL } from '../http/websocket.js';
import { bridge, type EndReason } from './exec-session.js';
import { arrayOf, bool, int, nullable, object, str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { serviceDeploymentOf } from './deploy-loaders.js';

/** A command: an argument vector as Docker's exec takes it (no shell reads it). */
export const commandSchema = arrayOf(str({ minLength: 1, maxLength: 8192, pattern: '^[^\\u0000]*$' }), { minItems: 1, maxItems: 256 });

/** 403 for everyone, admins too, in an environment whose operations.allowExec is off. */
export async function assertExecAllowed(s: Pick<Services, 'settings'>, environmentId: string): Promise<void> {
  if (!(await execAllowed(s, environmentId))) {
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

/** How often a live session checks that its caller may still exec (besides every auth change). */
const RECHECK_MS = 2_000;

/**
 * Why the caller of a live session may no longer exec, or null: the token is asked for again
 * (revoked, expired, its user disabled or re-roled) and held against the route's access by the
 * same authorization as at the start; and the environment must still allow exec.
 */
async function stillAllowed(s: Services, ctx: Ctx, spec: RouteSpec, resource: unknown, environmentId: string): Promise<EndReason | null> {
  const token = /^Bearer\s+(\S+)$/i.exec(ctx.req.headers.authorization ?? '')?.[1];
  const actor = token ? await authenticateToken({ jwtSecret: s.config.jwtSecret, users: s.users, apiTokens: s.apiTokens, environmentMembers: s.environmentMembers }, token) : null;
  if (!actor) return 'revoked';
  const probe = { state: { actor }, params: ctx.params, get: () => '' } as unknown as Ctx;
  try {
    authorize(probe, spec);
    authorizeResource(probe, spec, resource);
  } catch {
    return 'role-lowered';
  }
  try {
    await assertExecAllowed(s, environmentId);
  } catch {
    return 'exec-disabled';
  }
  return null;
}

export default function execRoutes(s: Services) {
  // every live session, so that an auth change anywhere (cache-invalidation) checks them at once
  const live = new Set<() => void>();
  s.invalidation.on('auth', () => { for (const check of live) check(); });
  const wsSpec: RouteSpec = route<unknown, { cmd: string[]; cols?: number; rows?: number }, Awaited<ReturnType<ReturnType<typeof execDeploymentOf>>>>({
    method: 'GET', path: '/api/services/{id}/deployments/{depId}/exec/ws', operationId: 'execServiceDeploymentInteractive', tag: 'services',
    access: 'operator', summary: "WebSocket: an interactive session (a TTY with stdin) in the deployment's running container",
    description: 'A WebSocket upgrade; the bearer token in the Authorization header or, from a browser, as the subprotocol `bearer.<token>` '
      + `beside \`${EXEC_PROTOCOL}\` (the one answered). ?cmd= once per argument (default /bin/sh). Binary frames are keystrokes; text frames `
      + 'are JSON {type:"resize", cols, rows} or {type:"stdin", data}. The server sends the terminal\'s output as binary frames, then '
      + '{type:"exit", exitCode, reason} and closes. The session ends when the command ends, the client closes, the token is revoked, '
      + 'the caller\'s role falls below operator or exec is turned off. Audited at its end (who, container, command, end, exit code); '
      + 'what is typed and printed is never kept. Refused upgrades answer with the usual error envelope.',
    load: execDeploymentOf(s), errors: [403, 409, 503], raw: true,
    query: { cmd: commandSchema, cols: int(1, 1000), rows: int(1, 1000) },
    alsoAnswers: { 101: { description: 'Switching protocols: the WebSocket session' } },
    async handler(ctx, { resource, query }) {
      assertUpgrade(ctx);
      const d = resource.deployment;
      const command = query.cmd?.length ? query.cmd : ['/bin/sh'];
      const docker = await s.hosts.docker(d.serverId);
      const target = await execTarget(docker, d);
      // the exec starts before the handshake: what the client sends once it is open has a terminal to go to
      const tty = await execTty(docker, target.containerId, command, query.cols && query.rows ? { cols: query.cols, rows: query.rows } : undefined);
      let session: ReturnType<typeof bridge>;
      try {
        session = bridge(await acceptWebSocket(ctx), tty);
      } catch (e) {
        tty.stream.destroy();
        throw e;
      }
      const startedAt = new Date();
      const check = () => {
        void stillAllowed(s, ctx, wsSpec, resource, d.environmentId).then((why) => { if (why) session.end(why); }, () => {});
      };
      live.add(check);
      const timer = setInterval(check, RECHECK_MS);
      const end = await session.ended.finally(() => { clearInterval(timer); live.delete(check); });
      ctx.state.audit = {
        action: 'execServiceDeployment', resourceType: 'deployments', resourceId: d.id, environmentId: d.environmentId,
        details: {
          serviceId: d.serviceId, serverId: d.serverId, containerName: target.containerName, containerId: target.containerId,
          command, interactive: true, startedAt: startedAt.toISOString(), endedAt: new Date().toISOString(),
          exitCode: end.exitCode, endedBy: end.reason,
        },
      };
      await recordRequest(s.audit, ctx, wsSpec, resource, undefined).catch((e) => s.logger.error('exec session audit failed', { error: String(e) }));
    },
  });
  return [
    wsSpec,
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
