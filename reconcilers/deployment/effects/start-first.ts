// The start-first switch (docs/deploys.md), like swarm's update order start-first and Kamal's proxy
// switch: the new container starts beside the old one under a temporary name, and only once it is
// healthy does it take the service's alias on the environment's network; the old one then leaves
// the network, is given the drain period, stopped and removed, and the new one takes the canonical
// name. A new container that never gets healthy is removed and the old one was never touched. Each
// step is an argv (controller/hosts/commands/) so the whole switch reads as data.
import type Docker from 'dockerode';
import type { Argv } from '../../../controller/hosts/shell-quote.js';
import { networkConnect, networkCreate, networkDisconnect, networkInspect, rename, rm, stop } from '../../../controller/hosts/commands/docker.js';
import { or } from '../../../controller/hosts/commands/combine.js';
import { LABEL, type DesiredContainer } from '../../../controller/model/desired-container.js';
import { assertOwned, leftBehind } from './direct-recreate.js';
import { createOptionsOf } from '../../../controller/deploy/container-options.js';
import { nextContainerName } from '../../../controller/deploy/switch-names.js';
import { UnhealthyContainer, type Healthy } from './wait-healthy.js';
import type { DeployMode } from './deploy-mode.js';

export interface StartFirstDeploy {
  desired: DesiredContainer;
  /** Runs one argv on the deployment's server. */
  exec: (argv: Argv) => Promise<unknown>;
  /** Resolves when the named container is healthy, throws when it is not. */
  verify: (containerName: string) => Promise<Healthy>;
  log: (l: string) => Promise<void>;
  /** The drain wait (tests pass their own clock). */
  sleep?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const isNotFound = (e: unknown) => (e as { statusCode?: number }).statusCode === 404;

async function inspectOrNull(docker: Docker, name: string): Promise<Docker.ContainerInspectInfo | null> {
  try {
    return await docker.getContainer(name).inspect();
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

/** How long, at most, both containers answer to the alias before the old one leaves (drainSec caps it). */
export const OVERLAP_MAX_SEC = 2;

/** The network and the alias a start-first container is reached by. */
export function reachOf(desired: DesiredContainer): { network: string; alias: string } {
  if (!desired.networkAlias || desired.networks.length !== 1) throw new TypeError(`${desired.containerName} is not a start-first container`);
  return { network: desired.networks[0]!, alias: desired.networkAlias };
}

const joined = (c: Docker.ContainerInspectInfo, network: string) => !!c.NetworkSettings?.Networks?.[network];

/** The environment's network, created when missing (a concurrent create is the last inspect's success). */
export const ensureNetwork = (network: string, environmentId: string): string[] =>
  or(networkInspect(network), networkCreate(network, { [LABEL.managed]: 'true', [LABEL.environment]: environmentId }), networkInspect(network));

/** The switch once the new container is healthy, step by step: take the alias, leave, (drain), retire, rename. */
export function switchCommands(desired: DesiredContainer, oldId: string, newId: string, oldJoined: boolean) {
  const { network, alias } = reachOf(desired);
  return {
    takeOver: networkConnect(network, newId, { alias }),
    leave: oldJoined ? networkDisconnect(network, oldId) : null,
    retire: [stop(oldId, 10), rm(oldId, { force: true })],
    promote: rename(newId, desired.containerName),
  };
}

/**
 * A switch a controller did not finish (crash, lost server) leaves the new container under its
 * temporary name. While the old one still serves (running, on the network), the new one is
 * removed and the deploy starts over; once the old one stopped serving the switch is finished.
 */
export async function recoverInterruptedSwitch(docker: Docker, r: Omit<StartFirstDeploy, 'verify' | 'sleep'>): Promise<void> {
  const { desired } = r;
  const name = desired.containerName;
  const next = nextContainerName(name);
  const found = await leftBehind(docker, desired, next);
  if (!found) return;
  const { left, current } = found;
  const network = desired.networkAlias ? reachOf(desired).network : null;
  const currentServes = !!current?.State.Running && (!network || joined(current, network));
  if (currentServes || !left.State.Running) {
    await r.exec(rm(left.Id, { force: true }));
    await r.log(`removed ${next}, left by an interrupted start-first deploy (${current ? `${name} still serves` : 'it was not running'})`);
    return;
  }
  if (current) for (const argv of [stop(current.Id, 10), rm(current.Id, { force: true })]) await r.exec(argv);
  if (network && !joined(left, network)) await r.exec(networkConnect(network, left.Id, { alias: desired.networkAlias! }));
  await r.exec(rename(left.Id, name));
  await r.log(`finished the start-first switch an interrupted deploy left: ${next} is ${name} now`);
}

/**
 * Replaces the running container `old` with a new one from the desired spec without a moment
 * where the alias resolves to nothing. Succeeds only when the new container is observed running
 * and healthy under the canonical name, reachable by its alias.
 */
export async function startFirst(docker: Docker, old: Docker.ContainerInspectInfo, r: StartFirstDeploy): Promise<Healthy> {
  const { desired } = r;
  const name = desired.containerName;
  const next = nextContainerName(name);
  const { network, alias } = reachOf(desired);
  assertOwned(desired, old, name);
  await r.exec(ensureNetwork(network, desired.environmentId));
  const created = await docker.createContainer({ ...createOptionsOf(desired), name: next });
  try {
    await created.start();
    await r.log(`started ${next} from ${desired.image} beside ${name}, which keeps serving`);
    await r.verify(next);
  } catch (e) {
    await created.remove({ force: true }).catch(() => undefined);
    if (e instanceof Error) e.message = `${e.message}; removed the new container ${next}, ${name} was not touched and still serves`;
    await r.log(`removed ${next}: it did not become healthy; ${name} still serves`);
    throw e;
  }
  const steps = switchCommands(desired, old.Id, created.id, joined(old, network));
  await r.exec(steps.takeOver);
  await r.log(`${next} is healthy and answers as ${alias} on ${network}`);
  // Both answer to the alias for a moment before the old one leaves: a client that resolved both
  // addresses and tries the new one while its endpoint is still coming up falls back to the old
  // one, which is still there (on a loaded host that took longer than the client's timeout).
  const overlapSec = Math.min(desired.drainSec, OVERLAP_MAX_SEC);
  if (steps.leave && overlapSec > 0) await (r.sleep ?? sleep)(overlapSec * 1000);
  if (steps.leave) await r.exec(steps.leave);
  await r.log(`${name} left ${network}; draining for ${desired.drainSec} s before it stops`);
  await (r.sleep ?? sleep)(desired.drainSec * 1000);
  for (const argv of steps.retire) await r.exec(argv);
  await r.exec(steps.promote);
  await r.log(`stopped and removed the old ${name}; ${next} is ${name} now`);
  return observedSwitched(docker, desired, created.id);
}

/** Direct mode with update order start-first, over a running container (mode-for.ts). */
export const startFirstMode: DeployMode = {
  name: 'start-first',
  async deploy({ docker, desired, observed, exec, verify, log }) {
    const old = await docker.getContainer(observed.id!).inspect();
    return startFirst(docker, old, { desired, exec, verify, log });
  },
};

/** Status never lies: what Docker reports under the canonical name after the switch. */
async function observedSwitched(docker: Docker, desired: DesiredContainer, newId: string): Promise<Healthy> {
  const { network, alias } = reachOf(desired);
  const c = await inspectOrNull(docker, desired.containerName);
  const health = c?.State.Health?.Status;
  const aliases = c?.NetworkSettings?.Networks?.[network] as { Aliases?: string[] | null; DNSNames?: string[] | null } | undefined;
  const problem = !c || c.Id !== newId ? `${desired.containerName} is not the new container`
    : !c.State.Running ? `${desired.containerName} is ${c.State.Status}`
      : health && health !== 'healthy' ? `${desired.containerName} is ${health}`
        : ![...aliases?.Aliases ?? [], ...aliases?.DNSNames ?? []].includes(alias) ? `${desired.containerName} is not reachable as ${alias} on ${network}`
          : null;
  if (problem) throw new UnhealthyContainer(`after the start-first switch ${problem}`);
  return { containerId: c!.Id, imageId: c!.Image };
}

/** After a stop-first (re)create of a start-first container: it joins the network under its alias. */
export async function joinNetwork(docker: Docker, desired: DesiredContainer, exec: StartFirstDeploy['exec']): Promise<void> {
  const { network, alias } = reachOf(desired);
  await exec(ensureNetwork(network, desired.environmentId));
  const c = await inspectOrNull(docker, desired.containerName);
  if (!c) throw new UnhealthyContainer(`${desired.containerName} does not exist`);
  const ep = c.NetworkSettings?.Networks?.[network] as { Aliases?: string[] | null; DNSNames?: string[] | null } | undefined;
  if (ep && [...ep.Aliases ?? [], ...ep.DNSNames ?? []].includes(alias)) return;
  if (ep) await exec(networkDisconnect(network, c.Id));
  await exec(networkConnect(network, c.Id, { alias }));
}
