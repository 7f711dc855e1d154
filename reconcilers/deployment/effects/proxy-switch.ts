// The switch through the ingress proxy (docs/ingress.md#zero-downtime-deploys), a deploy mode of
// its own (deploy-mode.ts): the new container starts beside the old one under a temporary name;
// only once it is healthy is the server's proxy route pointed at it, and observed so in the
// proxy's live config (reconcilers/proxy/switch-route.ts); the old one is then drained for
// drainSec, stopped and removed, and the new one takes the canonical name. A new container that
// never gets healthy is removed: it was never routed to (the route table takes only healthy
// containers) and the old one was never touched. A rollback is the same switch back.
import type Docker from 'dockerode';
import { networkConnect, networkDisconnect, rename, rm, stop } from '../../../controller/hosts/commands/docker.js';
import { createOptionsOf } from '../../../controller/deploy/container-options.js';
import { nextContainerName } from '../../../controller/deploy/switch-names.js';
import { fixedHostPorts } from '../../../controller/deploy/update-order.js';
import type { ServiceRow } from '../../../controller/store/repositories/services.js';
import { routeTo } from '../../proxy/switch-route.js';
import { reconcileProxy } from '../../proxy/reconcile-proxy.js';
import type { Argv } from '../../../controller/hosts/shell-quote.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { ProxyServices } from '../../proxy/reconcile-proxy.js';
import type { DeployMode } from './deploy-mode.js';
import { assertOwned } from './direct-recreate.js';
import { ensureNetwork, reachOf } from './start-first.js';
import { UnhealthyContainer, type Healthy } from './wait-healthy.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A direct-mode service with an ingress and no fixed host port (the two containers run side by side). */
export const switchesThroughProxy = (service: Pick<ServiceRow, 'ingress' | 'ports'>) => !!service.ingress && !fixedHostPorts(service.ports ?? []).length;

export interface ProxySwitch {
  desired: DesiredContainer;
  exec: (argv: Argv) => Promise<unknown>;
  /** Resolves when the named container is healthy, throws when it is not. */
  verify: (containerName: string) => Promise<Healthy>;
  log: (l: string) => Promise<void>;
}

/** Replaces the running container `oldId` with a new one from the desired spec, switching the proxy's route once it is healthy. */
export async function proxySwitch(s: ProxyServices, docker: Docker, oldId: string, { desired, exec, verify, log }: ProxySwitch): Promise<Healthy> {
  const old = await docker.getContainer(oldId).inspect();
  const name = desired.containerName;
  const next = nextContainerName(name);
  assertOwned(desired, old, name);
  const reach = desired.networkAlias ? reachOf(desired) : null;
  if (reach) await exec(ensureNetwork(reach.network, desired.environmentId));
  const created = await docker.createContainer({ ...createOptionsOf(desired), name: next });
  const removeNew = async (why: string) => {
    await created.remove({ force: true }).catch(() => undefined);
    // the route table follows what runs: without the new container it forwards to the old one
    await reconcileProxy(s, desired.serverId).catch(() => undefined);
    await log(`removed ${next}: ${why}; ${name} still serves`);
  };
  try {
    await created.start();
    await log(`started ${next} from ${desired.image} beside ${name}, which keeps serving through the proxy`);
    await verify(next);
  } catch (e) {
    await removeNew('it did not become healthy, and the proxy never routed to it');
    if (e instanceof Error) e.message = `${e.message}; removed the new container ${next}, ${name} was not touched and still serves`;
    throw e;
  }
  let switchMs: number;
  try {
    switchMs = await routeTo(s, desired.serverId, desired.serviceId, created.id);
  } catch (e) {
    await removeNew('the proxy did not route to it');
    throw e;
  }
  await log(`${next} is healthy; the proxy routes to it (route switched ${switchMs} ms after healthy)`);
  if (reach) {
    await exec(networkConnect(reach.network, created.id, { alias: reach.alias }));
    if (old.NetworkSettings?.Networks?.[reach.network]) await exec(networkDisconnect(reach.network, old.Id));
  }
  await log(`draining ${name} for ${desired.drainSec} s before it stops`);
  await sleep(desired.drainSec * 1000);
  await exec(stop(old.Id, 10));
  await exec(rm(old.Id, { force: true }));
  await exec(rename(created.id, name));
  await log(`stopped and removed the old ${name}; ${next} is ${name} now`);
  return observedSwitched(docker, name, created.id);
}

/** Direct mode, a service with an ingress and no fixed host port, over a running container (mode-for.ts). */
export const proxySwitchMode: DeployMode = {
  name: 'proxy-switch',
  deploy: ({ s, docker, desired, observed, exec, verify, log }) => proxySwitch(s, docker, observed.id!, { desired, exec, verify, log }),
};

/** Status never lies: what Docker reports under the canonical name after the switch. */
async function observedSwitched(docker: Docker, name: string, newId: string): Promise<Healthy> {
  const c = await docker.getContainer(name).inspect().catch(() => null);
  const health = c?.State.Health?.Status;
  const problem = !c || c.Id !== newId ? `${name} is not the new container`
    : !c.State.Running ? `${name} is ${c.State.Status}`
      : health && health !== 'healthy' ? `${name} is ${health}` : null;
  if (problem) throw new UnhealthyContainer(`after the switch through the proxy ${problem}`);
  return { containerId: c!.Id, imageId: c!.Image };
}
