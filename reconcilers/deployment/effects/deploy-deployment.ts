// One deployment to one tag, on its server: the effect behind every deploy step and every
// rollback. The whole container is rendered from the store (reconcilers/deployment/desired.ts),
// compared with what Docker reports, and only a difference changes anything: a container that
// already runs the desired spec is left alone. A container with the deployment's name that the
// deployment does not own is never touched. Names are validated before anything runs; every
// remote command is an argv. The steps every deploy shares run here; how the container is then
// replaced is the deploy mode's (deploy-mode.ts), chosen in mode-for.ts.
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { conflict, validationError } from '../../../controller/errors/app-error.js';
import { rm } from '../../../controller/hosts/commands/docker.js';
import { MANAGED_ROOT, type ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import { composeFilesOf } from '../../../controller/deploy/compose/generate-compose.js';
import { settleAside } from './direct-recreate.js';
import { recoverInterruptedSwitch } from './start-first.js';
import { registryAuthFor } from '../../../controller/deploy/registry-auth.js';
import { pullImage } from '../../../controller/deploy/pull-image.js';
import { describePull } from '../../../controller/deploy/pull-progress.js';
import { redactSecrets } from '../../../controller/crypto/redact.js';
import { assertContainerName, assertImageName, assertImageTag, assertSafePath } from '../../../controller/deploy/names.js';
import { CONTAINER_PATH_HINT, reservedMountOf } from '../../../controller/deploy/container-paths.js';
import { waitHealthy, type Healthy } from './wait-healthy.js';
import { ensureVolumes } from '../../../controller/volumes/ensure-volume.js';
import { loadDesired, type DesiredReads, type LoadedDesired } from '../load-desired.js';
import { observeDeployment } from '../observe.js';
import { ownershipConflict, plan } from '../plan.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { DeployRequest, DeployServices } from './deploy-mode.js';
import { modeFor } from './mode-for.js';
import { assertRenderedAllowed } from './container-allowed.js';

export interface DeployOutcome extends Healthy {
  mode: ComposeDecision['mode'];
  composePath: string | null;
  specHash: string;
  /** False: the container already ran the desired spec and was left alone. */
  changed: boolean;
}

/** Everything that can be checked without touching the server. */
export function validateRequest(r: Pick<DeployRequest, 'deployment' | 'imageName' | 'imageTag'>): void {
  assertContainerName(r.deployment.containerName);
  assertImageName(r.imageName);
  assertImageTag(r.imageTag);
  if (r.deployment.composePath !== null) assertSafePath(r.deployment.composePath);
}

export async function deployDeployment(s: DeployServices, r: DeployRequest): Promise<DeployOutcome> {
  validateRequest(r);
  const loaded = await loadDesired(s, r.deployment, { imageTag: r.imageTag, imageId: null, revision: r.revision ?? null });
  if (!loaded) throw validationError(`service ${r.service.name} has no container image`, 'containerImageId');
  if (loaded.desired.unresolved.length) {
    throw validationError(`env placeholders without a var or secret: ${loaded.desired.unresolved.join(', ')}`, 'env');
  }
  const reserved = reservedMountOf({ files: loaded.desired.mountFiles ? loaded.desired.files : [], volumes: loaded.desired.volumes ?? [] });
  if (reserved) throw validationError(`service ${r.service.name}: ${reserved}; nothing was changed on the server`, 'targetPath', CONTAINER_PATH_HINT);
  await assertRenderedAllowed(s, loaded);
  if (loaded.volumeProblem) throw validationError(`service ${r.service.name}: ${loaded.volumeProblem.message}; nothing was changed on the server`, loaded.volumeProblem.field);
  // its managed volumes first: the container is created mounting them
  if (loaded.volumes.length) await ensureVolumes(s, loaded.volumes, r.log);
  try {
    const out = await deployWith(s, r, loaded);
    await s.deployments.recordObserved(r.deployment.id, { specHash: out.specHash });
    return out;
  } catch (e) {
    // error text ends up in step records and events: a tool that echoed an env line must not leak it
    if (e instanceof Error) e.message = redactSecrets(e.message, loaded.secretValues, 4);
    throw e;
  }
}

async function deployWith(s: DeployServices, r: DeployRequest, loaded: LoadedDesired): Promise<DeployOutcome> {
  const { deployment: d } = r;
  const { decision } = loaded;
  const composePath = decision.mode === 'direct' ? null : decision.path;
  const files = decision.mode === 'compose-generated' ? composeFilesOf(loaded.desired, decision.path, loaded.service.composeTemplate) : null;
  let desired: DesiredContainer = { ...loaded.desired, composeFileHash: files?.compose.sha256 ?? null };
  const docker = await s.hosts.docker(d.serverId);
  const exec = (argv: readonly string[]) => s.hosts.exec(d.serverId, argv);
  // level-triggered: a start-first switch or a recreate an earlier controller left half done is
  // settled first (both direct modes leave their containers under the same names)
  if (decision.mode === 'direct') {
    await recoverInterruptedSwitch(docker, { desired, exec, log: r.log });
    await settleAside(docker, desired, r.log);
  }
  const observed = await observeDeployment(s, desired, files?.compose.path ?? null);
  // before anything is written: a container that is not ours is never changed, nor inherited from
  const owner = observed.exists ? ownershipConflict(desired, observed.owner, d.containerName, observed.id) : null;
  if (owner) throw conflict(`CONFLICT: ${owner}; it is never changed`, 'Rename or remove that container, or choose another containerName', 'containerName');
  if (r.pull) {
    const imageRow = r.service.containerImageId ? await s.containerImages.findById(r.service.containerImageId) : undefined;
    const auth = await registryAuthFor(s, d.environmentId, r.imageName, imageRow?.registryConnectionId ?? null);
    await r.log(`pulling ${desired.image}${auth ? ` (as ${auth.username} on ${auth.serveraddress})` : ''}${r.pulls ? ' (started with the plan)' : ''}`);
    const pull = () => pullImage(docker, desired.image, auth, { stallMs: s.config.pullStallMs });
    await r.log(describePull(desired.image, await (r.pulls ? r.pulls.once(d.serverId, desired.image, pull) : pull())));
    desired = { ...desired, imageId: (await docker.getImage(desired.image).inspect()).Id };
  }
  const verify = (name = d.containerName) => waitHealthy(docker, name, r.service.healthCheck, r.log, { bus: s.hosts.containerEvents, serverId: d.serverId });
  const step = plan(desired, observed);
  const done = (healthy: Healthy, changed: boolean): DeployOutcome => ({ ...healthy, mode: decision.mode, composePath, specHash: desired.specHash, changed });
  if (step.action === 'none') {
    await r.log(step.adopted
      ? `${d.containerName} (adopted container ${observed.id!.slice(0, 12)}, started outside Stevedore) already runs the desired spec (${desired.imageTag}); left as it is`
      : `${d.containerName} is already running the desired spec (${desired.imageTag}); nothing to change`);
    return done(await verify(), false);
  }
  await r.log(`${d.containerName}: ${step.action} (${step.differences.map((x) => x.message).join('; ')})`);
  await writeConfigFiles(s, desired, loaded, observed.files, r.log);
  const mode = modeFor(decision, desired, observed, r.service);
  const touch = async () => { await r.onTouch?.(decision.mode); };
  if (!mode.validatesFirst) await touch();
  if (step.action === 'start') {
    await docker.getContainer(observed.id!).start();
    await r.log(`started the stopped container ${d.containerName}`);
    return done(await verify(), true);
  }
  return done(await mode.deploy({ s, request: r, decision, desired, observed, files, docker, exec, verify, touch, log: r.log }), true);
}

/**
 * Attached config files go to the deployment's own directory before the container is (re)created,
 * so it never starts with stale ones. The write replaces the file (temp + rename): a bind mount
 * of the old file keeps showing the old bytes, which is why a content change recreates.
 */
async function writeConfigFiles(s: Pick<Services, 'configStore' | 'hosts'>, desired: DesiredContainer, loaded: LoadedDesired, onDisk: Record<string, string | null>,
  log: (l: string) => Promise<void>): Promise<void> {
  const stale = desired.files.filter((f) => onDisk[f.hostPath] !== f.contentHash);
  for (const f of stale) {
    await s.hosts.writeFile(desired.serverId, f.hostPath, loaded.fileContents.get(f.hostPath)!, { mode: f.mode });
    await s.configStore.attachments.recordSync({ attachmentId: f.attachmentId, serverId: desired.serverId, contentHash: f.contentHash, targetPath: f.targetPath });
  }
  if (desired.files.length) await log(`config files: ${stale.length} written, ${desired.files.length - stale.length} already up to date`);
}

/** Rolling back a first deploy (nothing ran before) or a pruned deployment: the container goes away, only if it is ours. */
export async function removeDeploymentContainer(s: Pick<Services, 'hosts'>, d: DeploymentRow, log: (l: string) => Promise<void>, why = 'it had no previous version'): Promise<void> {
  assertContainerName(d.containerName);
  const docker = await s.hosts.docker(d.serverId);
  const c = await docker.getContainer(d.containerName).inspect().catch(() => null);
  if (!c) return;
  const labels = c.Config.Labels ?? {};
  const ours = labels['stevedore.deployment-id'] === d.id || (!labels['stevedore.managed'] && d.composePath !== null && !d.composePath.startsWith(`${MANAGED_ROOT}/`));
  if (!ours) throw conflict(`CONFLICT: container ${d.containerName} is not this deployment's; it is never removed`);
  await s.hosts.exec(d.serverId, rm(d.containerName, { force: true }));
  await log(`removed ${d.containerName} (${why})`);
}

/**
 * Plan recovery, for a step it ends without running it again (and without a rollback, which
 * would settle it through deployDeployment): an aside container the interrupted step left on the
 * server is settled (direct-recreate.ts settleAside), so the previous version's env and secrets do
 * not stay behind in a stopped container until a later deploy.
 */
export async function settleInterruptedStep(s: DesiredReads & Pick<Services, 'hosts'>, d: DeploymentRow, log: (l: string) => Promise<void>): Promise<void> {
  assertContainerName(d.containerName);
  const loaded = await loadDesired(s, d, { imageTag: d.imageTag ?? undefined, imageId: null });
  if (!loaded || loaded.decision.mode !== 'direct') return;
  const docker = await s.hosts.docker(d.serverId);
  await settleAside(docker, loaded.desired, log);
}
