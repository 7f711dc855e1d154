// Compose path rule 2, "restart directly": no compose file, so the container is created through
// the Docker API from the desired spec, nothing copied from the old container. The old one is
// renamed aside and stopped, not removed, until the new one is healthy; if the new one fails, the
// old one is put back and started, so a failed step leaves the previous version serving. Only
// containers the deployment owns are ever renamed, stopped or removed (the caller checked the
// current one; the aside one is checked here).
import type Docker from 'dockerode';
import { conflict } from '../../../controller/errors/app-error.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import { observedFromInspect } from '../observe.js';
import { ownershipConflict } from '../plan.js';
import { createOptionsOf } from '../../../controller/deploy/container-options.js';

const isNotFound = (e: unknown) => (e as { statusCode?: number }).statusCode === 404;

async function inspectOrNull(docker: Docker, name: string) {
  try {
    return await docker.getContainer(name).inspect();
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

export const asideName = (containerName: string) => `${containerName}-stevedore-old`;

/** Refuses (CONFLICT naming the owner) unless the container is the deployment's own. */
export function assertOwned(desired: DesiredContainer, c: Docker.ContainerInspectInfo, name: string): void {
  const why = ownershipConflict(desired, observedFromInspect(c).owner, name, c.Id);
  if (why) throw conflict(`CONFLICT: ${why}; it is never changed`, 'Rename or remove that container, or choose another containerName', 'containerName');
}

/**
 * A container an interrupted replacement left under `other` (the aside or the next name), with the
 * one under the canonical name; null when there is none. Both must be the deployment's own.
 */
export async function leftBehind(docker: Docker, desired: DesiredContainer, other: string) {
  const left = await inspectOrNull(docker, other);
  if (!left) return null;
  assertOwned(desired, left, other);
  const current = await inspectOrNull(docker, desired.containerName);
  if (current) assertOwned(desired, current, desired.containerName);
  return { left, current };
}

export interface DirectDeploy {
  desired: DesiredContainer;
  /** Resolves when healthy, throws when not. */
  verify: () => Promise<void>;
  log: (l: string) => Promise<void>;
}

/**
 * An aside container left by a recreate that was interrupted (the controller killed between the
 * rename aside and the end of the health wait) holds the previous version's env and secrets; it
 * is settled before anything else is decided for the deployment (level-triggered, like
 * recoverInterruptedSwitch):
 * - the container under the canonical name runs: the new one started, so the step's outcome is
 *   settled on its own run (healthy: done; unhealthy: the step fails and its rollback recreates
 *   the previous version from the store). The aside one is removed.
 * - no container under the canonical name (killed before the new one was created), or one that
 *   is not running (created and never started, or exited since): the new one never got going, so
 *   it is removed and the previous version is put back under the name and started again, as
 *   recreateDirect does when a new one fails; what follows then replaces it in the ordinary way.
 * Only containers the deployment owns are touched (CONFLICT otherwise).
 */
export async function settleAside(docker: Docker, desired: DesiredContainer, log: (l: string) => Promise<void>): Promise<void> {
  const name = desired.containerName;
  const aside = asideName(name);
  const found = await leftBehind(docker, desired, aside);
  if (!found) return;
  const { left, current } = found;
  if (current?.State.Running) {
    await docker.getContainer(left.Id).remove({ force: true });
    await log(`removed ${aside}, left by an interrupted deploy: ${name} runs`);
    return;
  }
  if (current) await docker.getContainer(current.Id).remove({ force: true });
  await docker.getContainer(left.Id).rename({ name });
  await docker.getContainer(left.Id).start().catch((e) => { if ((e as { statusCode?: number }).statusCode !== 304) throw e; });
  await log(`put ${aside}, left by an interrupted deploy, back as ${name}: the new container never started`);
}

export async function recreateDirect(docker: Docker, r: DirectDeploy): Promise<void> {
  const { desired } = r;
  const name = desired.containerName;
  const aside = asideName(name);
  let old = await inspectOrNull(docker, name);
  if (old) assertOwned(desired, old, name);
  const leftAside = await inspectOrNull(docker, aside);
  if (leftAside) assertOwned(desired, leftAside, aside);
  // a crash between "rename aside" and "new one created" leaves only the aside container: it is
  // still the deployment's previous version, so it becomes the old one again
  if (!old && leftAside) {
    await docker.getContainer(leftAside.Id).rename({ name });
    await r.log(`found ${aside} left by an interrupted deploy; using it as the current container`);
    old = await inspectOrNull(docker, name);
  } else if (leftAside) {
    await docker.getContainer(leftAside.Id).remove({ force: true });
  }
  if (old) {
    // stopped before the rename: renaming a crash-looping container between two of its restarts
    // fails ("sandbox … not found"), so a fix could never be deployed over one
    await docker.getContainer(old.Id).stop({ t: 10 }).catch((e) => { if ((e as { statusCode?: number }).statusCode !== 304) throw e; });
    await docker.getContainer(old.Id).rename({ name: aside });
    await r.log(`stopped the old container of ${name} (kept aside as ${aside})`);
  }
  let created: Docker.Container | null = null;
  try {
    created = await docker.createContainer(createOptionsOf(desired));
    await created.start();
    await r.log(`started ${name} from ${desired.image} through the Docker API, from the desired spec`);
    await r.verify();
  } catch (e) {
    if (created) await created.remove({ force: true }).catch(() => undefined);
    if (old) {
      await docker.getContainer(old.Id).rename({ name }).catch(() => undefined);
      if (old.State.Running) await docker.getContainer(old.Id).start().catch(() => undefined);
      await r.log(`put the old container of ${name} back`);
    }
    throw e;
  }
  if (old) await docker.getContainer(old.Id).remove({ force: true }).catch(() => undefined);
}
