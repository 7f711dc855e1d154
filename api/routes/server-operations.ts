import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { BOOTSTRAP_STALE_MS, startBootstrap } from '../../controller/servers/bootstrap.js';
import { detectHostGateway } from '../../controller/servers/host-gateway.js';
import { addSwap } from '../../controller/servers/swap.js';
import { toBootstrapRun } from '../../controller/store/repositories/server-bootstrap-runs.js';
import type { ServerRow } from '../../controller/store/repositories/servers.js';
import { route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, nullable, nullableTimestamp, object, str, timestamp, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';

const stepRead = object({
  name: str(), status: enumOf('running', 'succeeded', 'failed', 'skipped'), message: str(), commands: arrayOf(arrayOf(str())),
  output: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
});
const runRead = object({
  id: uuid, serverId: uuid, status: enumOf('running', 'succeeded', 'failed'), distribution: { type: 'object', nullable: true },
  steps: arrayOf(stepRead), error: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
});
const swapArea = object({ name: str(), type: str(), sizeBytes: int(0), usedBytes: int(0) });
const SWAP_PATH = '^/[A-Za-z0-9._/-]{1,200}$';

/** Server operations on the machine itself: host gateway, bootstrap (install and start Docker), swap. */
export default function serverOperationRoutes(s: Services) {
  const load = rowOf(s.servers, 'Server');
  return [
    route<unknown, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/host-gateway', operationId: 'detectServerHostGateway', tag: 'servers', access: 'operator', load,
      summary: "Detect the address containers reach the server's host by: the gateway of Docker's default bridge, and whether "
        + 'the daemon resolves host-gateway (--add-host host.docker.internal:host-gateway). Read-only on the server',
      body: object({}), errors: [409, 502, 503],
      response: object({
        serverId: uuid, gateway: nullable(str()), subnet: nullable(str()), network: str(),
        source: nullable(enumOf('ipam', 'interface')), dockerVersion: str(),
        hostGatewaySupported: bool, extraHost: nullable(str()), detectedAt: timestamp,
      }),
      audit: false,
      handler: async (_ctx, { resource }) => detectHostGateway(s, resource),
    }),

    route<unknown, unknown, ServerRow>({
      method: 'GET', path: '/api/servers/{id}/bootstrap', operationId: 'getServerBootstrap', tag: 'servers', access: 'viewer', load,
      summary: 'The latest bootstrap of the server with its steps as they stand (poll it while status is running); 404 when it was never bootstrapped',
      response: runRead, errors: [404],
      async handler(_ctx, { resource }) {
        await s.serverBootstrapRuns.failAbandoned(resource.id, BOOTSTRAP_STALE_MS);
        const run = await s.serverBootstrapRuns.latestOf(resource.id);
        if (!run) throw notFound('Bootstrap run');
        return toBootstrapRun(run);
      },
    }),

    route<unknown, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/bootstrap', operationId: 'startServerBootstrap', tag: 'servers', access: 'operator', load,
      summary: 'Bootstrap the server over SSH: detect the distribution (/etc/os-release), check Docker, install it from the '
        + "distribution's packages when missing (sudo -n when not root), start it through the init system, verify it answers. "
        + 'Answers 202 with the run; GET the same path for its steps. 409 while one runs, and for socket-mode servers',
      body: object({}), status: 202, response: runRead, errors: [409],
      async handler(ctx, { resource }) {
        const run = await startBootstrap(s, resource);
        ctx.state.audit = { environmentId: resource.environmentId, details: { runId: run.id } };
        return toBootstrapRun(run);
      },
    }),

    route<{ sizeMb: number; path: string; dryRun: boolean }, unknown, ServerRow>({
      method: 'POST', path: '/api/servers/{id}/swap', operationId: 'addServerSwap', tag: 'servers', access: 'operator', load,
      summary: 'Add swap to the running server: a swap file of sizeMb at path (default /swapfile; never overwritten) made, switched on '
        + 'and kept in /etc/fstab. dryRun answers the commands and the current swap, changing nothing',
      body: object({
        sizeMb: int(64, 1_048_576), path: str({ pattern: SWAP_PATH, default: '/swapfile' }), dryRun: { type: 'boolean', default: false },
      }, ['sizeMb']),
      response: object({ serverId: uuid, dryRun: bool, commands: arrayOf(arrayOf(str())), swap: arrayOf(swapArea) }),
      errors: [409, 502, 503],
      async handler(ctx, { resource, body }) {
        const out = await addSwap(s, resource, body);
        if (out.dryRun) ctx.state.audit = { skip: true };
        else ctx.state.audit = { environmentId: resource.environmentId, details: { path: body.path, sizeMb: body.sizeMb } };
        return out;
      },
    }),
  ];
}
