// One deployment to one tag, on its server: the effect behind every deploy step and every
// rollback. The whole container is rendered from the store (reconcilers/deployment/desired.ts),
// compared with what Docker reports, and only a difference changes anything: a container that
// already runs the desired spec is left alone. A container with the deployment's name that the
// deployment does not own is never touched. Names are validated before anything runs; every
// remote command is an argv.
import { posix } from 'node:path';
import type Docker from 'dockerode';
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import type { ServiceRow } from '../../../controller/store/repositories/services.js';
import { conflict, validationError } from '../../../controller/errors/app-error.js';
import { rm } from '../../../controller/hosts/commands/docker.js';
import { composeUp as composeUpArgv } from '../../../controller/hosts/commands/compose.js';
import { canonicalPaths, mkdirP } from '../../../controller/hosts/commands/files.js';
import { MANAGED_ROOT, type ComposeDecision } from '../../../controller/deploy/compose/compose-path-rules.js';
import { assertDefinesContainer, parseCompose, type ComposeDocument } from '../../../controller/deploy/compose/validate-compose.js';
import { composeFilesOf, projectNameOf, type ComposeFiles } from '../../../controller/deploy/compose/generate-compose.js';
import { recreateDirect, settleAside } from './direct-recreate.js';
import { joinNetwork, recoverInterruptedSwitch, startFirst } from './start-first.js';
import { registryAuthFor } from '../../../controller/deploy/registry-auth.js';
import { pullImage } from '../../../controller/deploy/pull-image.js';
import { describePull } from '../../../controller/deploy/pull-progress.js';
import type { PlanPulls } from '../plans/plan-pulls.js';
import { redactSecrets } from '../../../controller/crypto/redact.js';
import { assertContainerName, assertImageName, assertImageTag, assertSafePath } from '../../../controller/deploy/names.js';
import { CONTAINER_PATH_HINT, reservedMountOf } from '../../../controller/deploy/container-paths.js';
import {
  assertContainerPolicy, bindSourcesOf, CONTAINER_POLICY_HINT, containerPolicyOf, ownDirOf, requestOfSpec, resolvedPathRefusals,
  type ContainerRequest, type PolicyReads,
} from '../../../controller/deploy/container-policy.js';
import { waitHealthy, type Healthy } from './wait-healthy.js';
import { loadDesired, type DesiredReads, type LoadedDesired } from '../load-desired.js';
import { observeDeployment } from '../observe.js';
import { ownershipConflict, plan } from '../plan.js';
import type { DesiredContainer } from '../../../controller/model/desired-container.js';
import type { RevisionSpec } from '../../service/revision-spec.js';

export interface DeployRequest {
  service: ServiceRow;
  deployment: DeploymentRow;
  imageName: string;
  imageTag: string;
  pull: boolean;
  /** false: keep the environment file already on the server (compose mode). */
  generate?: boolean;
  planId: string | null;
  /** Called once, just before the first change on the server (a rollback of a step that never got
   *  this far has nothing to undo). */
  onTouch?: (mode: ComposeDecision['mode']) => Promise<void>;
  log: (line: string) => Promise<void>;
  /** The plan's pulls, started when it started (plans/plan-pulls.ts): the step awaits its own among them. */
  pulls?: PlanPulls;
  /** The revision to render (its template, tag and config files); null: the service's row as it is now. */
  revision?: RevisionSpec | null;
}

export interface DeployOutcome extends Healthy {
  mode: ComposeDecision['mode'];
  composePath: string | null;
  specHash: string;
  /** False: the container already ran the desired spec and was left alone. */
  changed: boolean;
}

/** What a deploy uses beyond reading the desired container: the server, the image, the audit. */
type DeployEffects = Pick<Services, 'audit' | 'config' | 'environments' | 'hosts' | 'plans' | 'registries' | 'secretBox'>;

/** Everything that can be checked without touching the server. */
export function validateRequest(r: Pick<DeployRequest, 'deployment' | 'imageName' | 'imageTag'>): void {
  assertContainerName(r.deployment.containerName);
  assertImageName(r.imageName);
  assertImageTag(r.imageTag);
  if (r.deployment.composePath !== null) assertSafePath(r.deployment.composePath);
}

export async function deployDeployment(s: DesiredReads & DeployEffects, r: DeployRequest): Promise<DeployOutcome> {
  validateRequest(r);
  const loaded = await loadDesired(s, r.deployment, { imageTag: r.imageTag, imageId: null, revision: r.revision ?? null });
  if (!loaded) throw validationError(`service ${r.service.name} has no container image`, 'containerImageId');
  if (loaded.desired.unresolved.length) {
    throw validationError(`env placeholders without a var or secret: ${loaded.desired.unresolved.join(', ')}`, 'env');
  }
  const reserved = reservedMountOf({ files: loaded.desired.mountFiles ? loaded.desired.files : [], volumes: loaded.desired.volumes ?? [] });
  if (reserved) throw validationError(`service ${r.service.name}: ${reserved}; nothing was changed on the server`, 'targetPath', CONTAINER_PATH_HINT);
  await assertRenderedAllowed(s, loaded);
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

/**
 * The environment's container policy, on what this deploy is about to run: the service's volumes
 * and its template as this revision renders them. Written specs were checked at write time; a
 * policy tightened since (or a tag that fills a template token) stops the step here, before the
 * server is touched, with the message the write would have had.
 */
export async function assertRenderedAllowed(s: PolicyReads & Pick<Services, 'hosts'>, loaded: LoadedDesired): Promise<void> {
  const d = loaded.desired;
  const template = loaded.decision.mode === 'compose-external' ? null : loaded.service.composeTemplate;
  if (!d.volumes?.length && !template) return;
  await assertAllowedOnServer(s, d.serverId, d.environmentId,
    requestOfSpec({ volumes: d.volumes, composeTemplate: template }, d.containerName, { image: d.image, imageTag: d.imageTag }));
}

/**
 * The pure check, then the bind sources it allowed once more with their symlinks resolved on the
 * server (Docker follows them: a directory another container can write may hold a link to /).
 */
async function assertAllowedOnServer(s: PolicyReads & Pick<Services, 'hosts'>, serverId: string, environmentId: string, req: ContainerRequest): Promise<void> {
  const policy = await containerPolicyOf(s, environmentId);
  assertContainerPolicy(req, policy);
  const binds = bindSourcesOf(req, policy);
  if (!binds.length) return;
  const out = await s.hosts.exec(serverId, canonicalPaths(binds.map((b) => b.path)), { check: false });
  const resolved = out.code === 0 ? out.stdout.split('\n').slice(0, binds.length) : [];
  const [first] = resolvedPathRefusals(binds, resolved, policy, req.ownDir);
  if (first) throw validationError(first.message, first.field, CONTAINER_POLICY_HINT);
}

async function deployWith(s: DesiredReads & DeployEffects, r: DeployRequest, loaded: LoadedDesired): Promise<DeployOutcome> {
  const { deployment: d } = r;
  const { decision } = loaded;
  const composePath = decision.mode === 'direct' ? null : decision.path;
  const files = decision.mode === 'compose-generated' ? composeFilesOf(loaded.desired, decision.path, loaded.service.composeTemplate) : null;
  let desired: DesiredContainer = { ...loaded.desired, composeFileHash: files?.compose.sha256 ?? null };
  const docker = await s.hosts.docker(d.serverId);
  const exec = (argv: readonly string[]) => s.hosts.exec(d.serverId, argv);
  // level-triggered: a start-first switch an earlier controller left half done is settled first
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
  const verifyNamed = (name: string) => waitHealthy(docker, name, r.service.healthCheck, r.log, { bus: s.hosts.containerEvents, serverId: d.serverId });
  const verify = () => verifyNamed(d.containerName);
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
  if (decision.mode !== 'compose-external') await r.onTouch?.(decision.mode);
  if (step.action === 'start') {
    await docker.getContainer(observed.id!).start();
    await r.log(`started the stopped container ${d.containerName}`);
    return done(await verify(), true);
  }
  if (decision.mode === 'direct') {
    if (desired.updateOrder === 'start-first' && observed.running) {
      const old = await docker.getContainer(observed.id!).inspect();
      return done(await startFirst(docker, old, { desired, exec, verify: verifyNamed, log: r.log }), true);
    }
    let result: Healthy | null = null;
    await recreateDirect(docker, {
      desired, log: r.log,
      verify: async () => {
        result = await verify();
        // nothing served before: the new container takes the alias at once
        if (desired.networkAlias) await joinNetwork(docker, desired, exec);
      },
    });
    return done(result!, true);
  }
  if (r.service.updateOrder === 'start-first') await r.log(`${d.containerName}: start-first needs direct mode; compose recreates it stop-first`);
  if (decision.mode === 'compose-generated') {
    await writeComposeFiles(s, r, d, files!);
    if (decision.recordPath) await recordComposePath(s, d, decision.path);
    await handDirectContainerToCompose(s, d, docker, projectNameOf(decision.path), r.log);
    return done(await composeUp(s, d, [files!.compose.path, files!.env.path], projectNameOf(decision.path), {}, r.log, verify), true);
  }
  // a file Stevedore does not own is held to the same policy (an attached config file could be one)
  await assertAllowedOnServer(s, d.serverId, d.environmentId,
    { compose: { doc: await validateComposeOnDisk(s, d, decision.path), field: 'composePath' }, ownDir: ownDirOf(d.containerName) });
  await r.log(`validated ${decision.path}${decision.shared ? ' (shared by several deployments: never rewritten)' : ''}`);
  await r.onTouch?.(decision.mode);
  const project = projectNameOf(decision.path).toLowerCase().replace(/[^a-z0-9_-]/g, '');
  return done(await composeUp(s, d, [decision.path], project, { STEVEDORE_IMAGE: desired.image, STEVEDORE_IMAGE_TAG: r.imageTag }, r.log, verify), true);
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

async function writeComposeFiles(s: Pick<Services, 'hosts' | 'plans' | 'secretBox'>, r: DeployRequest, d: DeploymentRow, files: ComposeFiles): Promise<void> {
  await s.hosts.exec(d.serverId, mkdirP(posix.dirname(files.compose.path), 0o700));
  const withEnv = r.generate !== false;
  await Promise.all([
    withEnv && s.hosts.writeFile(d.serverId, files.env.path, files.env.content, { mode: 0o600 }),
    s.hosts.writeFile(d.serverId, files.compose.path, files.compose.content, { mode: 0o644 }),
  ]);
  await s.plans.artifacts.record(d.id, r.planId, r.imageTag, {
    compose: { path: files.compose.path, content: files.compose.content, sha256: files.compose.sha256 },
    ...(withEnv && { env: { path: files.env.path, sealedContent: s.secretBox.seal(files.env.content), redactedContent: files.env.redacted, sha256: files.env.sha256 } }),
  });
  await r.log(`wrote ${files.compose.path} and its environment file ${posix.basename(files.env.path)} (0600)`);
}

/** Rules 5 and 6 for a file Stevedore does not own: it must exist and define the container. */
export async function validateComposeOnDisk(s: Pick<Services, 'hosts'>, d: DeploymentRow, path: string): Promise<ComposeDocument> {
  const onDisk = await s.hosts.readFile(d.serverId, path);
  const where = `the compose file ${path} on the server`;
  if (!onDisk) throw validationError(`${where} does not exist`, 'composePath', 'Create it, or clear composePath to let Stevedore manage the container');
  const doc = parseCompose(onDisk.toString('utf8'), where);
  assertDefinesContainer(doc, d.containerName, where);
  return doc;
}

async function composeUp(s: Pick<Services, 'hosts'>, d: DeploymentRow, files: string[], project: string, env: Record<string, string>,
  log: (l: string) => Promise<void>, verify: () => Promise<Healthy>): Promise<Healthy> {
  const cli = await s.hosts.compose(d.serverId);
  // variables for the file's ${...} interpolation go through env(1): still one argv, no shell
  const envPrefix = Object.keys(env).length ? ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)] : [];
  const argv = [...envPrefix, ...composeUpArgv(cli.flavor, { projectName: project || d.containerName, file: files }, { services: [d.containerName], noDeps: true })];
  await log(`${cli.argv.join(' ')} up ${d.containerName}`);
  await s.hosts.exec(d.serverId, argv, { timeoutMs: 300_000 });
  return verify();
}

// A container the deployment made directly (or under another compose project) has the name
// compose wants; compose would refuse to start. Ownership was checked by the caller.
async function handDirectContainerToCompose(s: Pick<Services, 'hosts'>, d: DeploymentRow, docker: Docker, project: string, log: (l: string) => Promise<void>) {
  const c = await docker.getContainer(d.containerName).inspect().catch(() => null);
  if (!c || c.Config.Labels?.['com.docker.compose.project'] === project) return;
  await s.hosts.exec(d.serverId, rm(d.containerName, { force: true }));
  await log(`removed the directly managed container ${d.containerName} to hand it to compose`);
}

/** Rules 3 and 4: the generated path is recorded once, and the change is audited. */
async function recordComposePath(s: Pick<Services, 'audit' | 'deployments'>, d: DeploymentRow, path: string) {
  if (await s.deployments.recordGeneratedComposePath(d.id, path)) {
    await s.audit.record({
      actorType: 'system', action: 'updateDeploymentComposePath', resourceType: 'deployments', resourceId: d.id,
      environmentId: d.environmentId, details: { field: 'composePath', path, source: 'generator' },
    });
  }
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
