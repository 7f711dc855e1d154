// One deployment to one tag, on its server: the effect behind every deploy step and every
// rollback. Names are validated before anything runs; every remote command is an argv.
import { posix } from 'node:path';
import type { Services } from '../services.js';
import type { DeploymentRow } from '../store/repositories/deployments.js';
import type { ServiceRow } from '../store/repositories/services.js';
import { validationError } from '../errors/app-error.js';
import { rm } from '../hosts/commands/docker.js';
import { composeUp as composeUpArgv } from '../hosts/commands/compose.js';
import { mkdirP } from '../hosts/commands/files.js';
import { buildArtifacts, sha256 } from './artifacts.js';
import { decideCompose, MANAGED_ROOT, type ComposeDecision } from './compose/compose-path-rules.js';
import { assertDefinesContainer, parseCompose } from './compose/validate-compose.js';
import { ownershipLabels } from './compose/generate-compose.js';
import { freshCreateOptions, recreateDirect } from './direct-recreate.js';
import { loadEnvSources } from './env-sources.js';
import { syncServiceConfigOnServer } from '../config-files/sync-service-config.js';
import { registryAuthFor } from './registry-auth.js';
import { pullImage } from './pull-image.js';
import type { EnvSources } from './compose/render-env.js';
import { redactSecrets } from '../crypto/redact.js';
import { assertContainerName, assertImageName, assertImageTag, assertSafePath } from './names.js';
import { waitHealthy, type Healthy } from './wait-healthy.js';

export interface DeployRequest {
  service: ServiceRow;
  deployment: DeploymentRow;
  imageName: string;
  imageTag: string;
  pull: boolean;
  /** false: keep the env file already on the server (the compose file still names the new image). */
  generate?: boolean;
  planId: string | null;
  /** Called once, just before the first change on the server (a rollback of a step that never got
   *  this far has nothing to undo). */
  onTouch?: (mode: ComposeDecision['mode']) => Promise<void>;
  log: (line: string) => Promise<void>;
}

export interface DeployOutcome extends Healthy {
  mode: ComposeDecision['mode'];
  composePath: string | null;
}

/** Everything that can be checked without touching the server. */
export function validateRequest(r: Pick<DeployRequest, 'deployment' | 'imageName' | 'imageTag'>): void {
  assertContainerName(r.deployment.containerName);
  assertImageName(r.imageName);
  assertImageTag(r.imageTag);
  if (r.deployment.composePath !== null) assertSafePath(r.deployment.composePath);
}

export async function decisionFor(s: Services, d: DeploymentRow): Promise<ComposeDecision> {
  const ops = await s.settings.get<{ autoManageCompose: boolean }>(d.environmentId, 'operations');
  const [{ count }] = d.composePath === null ? [{ count: 1 }]
    : await s.db('deployments').where({ serverId: d.serverId, composePath: d.composePath }).count({ count: '*' });
  return decideCompose({ composePath: d.composePath, autoManageCompose: ops.autoManageCompose, containerName: d.containerName, deploymentsSharingPath: Number(count) });
}

export async function deployDeployment(s: Services, r: DeployRequest): Promise<DeployOutcome> {
  validateRequest(r);
  const sources = await loadEnvSources(s.configStore.catalog, r.deployment.environmentId);
  try {
    return await deployWith(s, r, sources);
  } catch (e) {
    // error text ends up in step records and events: a tool that echoed an env line must not leak it
    if (e instanceof Error) e.message = redactSecrets(e.message, Object.values(sources.secrets), 4);
    throw e;
  }
}

async function deployWith(s: Services, r: DeployRequest, sources: EnvSources): Promise<DeployOutcome> {
  const { deployment: d, service } = r;
  const image = `${r.imageName}:${r.imageTag}`;
  const decision = await decisionFor(s, d);
  const artifacts = buildArtifacts(service, d, image, r.imageTag, sources, decision.mode === 'direct' ? null : decision.path);
  if (artifacts.rendered.unresolved.length) {
    throw validationError(`env placeholders without a var or secret: ${artifacts.rendered.unresolved.join(', ')}`, 'env');
  }
  const docker = await s.hosts.docker(d.serverId);
  await syncConfigFiles(s, r);
  if (r.pull) {
    const imageRow = service.containerImageId ? await s.containerImages.findById(service.containerImageId) : undefined;
    const auth = await registryAuthFor(s, d.environmentId, r.imageName, imageRow?.registryConnectionId ?? null);
    await r.log(`pulling ${image}${auth ? ` (as ${auth.username} on ${auth.serveraddress})` : ''}`);
    await pullImage(docker, image, auth);
  }
  if (decision.mode !== 'compose-external') await r.onTouch?.(decision.mode);
  const verify = async () => waitHealthy(docker, d.containerName, service.healthCheck, r.log);
  let healthy: Healthy;
  let composePath: string | null = null;
  if (decision.mode === 'direct') {
    await r.log(`no compose file: recreating ${d.containerName} directly with ${image}`);
    let result: Healthy | null = null;
    await recreateDirect(docker, {
      containerName: d.containerName, image, log: r.log,
      labels: ownershipLabels({ service, deployment: d, imageTag: r.imageTag, envHash: artifacts.env.sha256 }),
      fresh: freshCreateOptions({ ...service, env: artifacts.rendered.values }),
      verify: async () => { result = await verify(); },
    });
    healthy = result!;
  } else if (decision.mode === 'compose-generated') {
    composePath = decision.path;
    await s.hosts.exec(d.serverId, mkdirP(posix.dirname(decision.path), 0o700));
    await Promise.all([
      r.generate !== false && s.hosts.writeFile(d.serverId, artifacts.env.path, artifacts.env.content, { mode: 0o600 }),
      s.hosts.writeFile(d.serverId, decision.path, artifacts.compose.content, { mode: 0o644 }),
    ]);
    await storeArtifacts(s, d.id, r.planId, r.imageTag, artifacts, r.generate !== false);
    await r.log(`wrote ${decision.path} and its env file (0600)`);
    if (decision.recordPath) await recordComposePath(s, d, decision.path);
    await removeForeignContainer(s, d, docker, r.log);
    healthy = await composeUp(s, d, decision.path, posix.basename(posix.dirname(decision.path)), {}, r.log, verify);
  } else {
    composePath = decision.path;
    await validateComposeOnDisk(s, d, decision.path);
    await r.log(`validated ${decision.path}${decision.shared ? ' (shared by several deployments: never rewritten)' : ''}`);
    await r.onTouch?.(decision.mode);
    healthy = await composeUp(s, d, decision.path, posix.basename(posix.dirname(decision.path)).toLowerCase().replace(/[^a-z0-9_-]/g, ''),
      { STEVEDORE_IMAGE: image, STEVEDORE_IMAGE_TAG: r.imageTag }, r.log, verify);
  }
  return { ...healthy, mode: decision.mode, composePath };
}

/** Attached config files go to the server before the container (re)starts, so it never reads stale ones. */
async function syncConfigFiles(s: Services, r: DeployRequest): Promise<void> {
  const results = await syncServiceConfigOnServer(s, r.service.id, r.deployment.serverId, false);
  const failed = results.filter((t) => t.status === 'failed');
  if (failed.length) {
    throw new Error(`config files could not be written: ${failed.map((t) => `${t.targetPath} (${t.error ?? 'failed'})`).join(', ')}`);
  }
  const written = results.filter((t) => t.status === 'written');
  if (results.length) await r.log(`config files: ${written.length} written, ${results.length - written.length} already up to date`);
}

/** Rules 5 and 6 for a file Stevedore does not own: it must exist and define the container. */
export async function validateComposeOnDisk(s: Services, d: DeploymentRow, path: string): Promise<void> {
  const onDisk = await s.hosts.readFile(d.serverId, path);
  const where = `the compose file ${path} on the server`;
  if (!onDisk) throw validationError(`${where} does not exist`, 'composePath', 'Create it, or clear composePath to let Stevedore manage the container');
  assertDefinesContainer(parseCompose(onDisk.toString('utf8'), where), d.containerName, where);
}

async function composeUp(s: Services, d: DeploymentRow, file: string, project: string, env: Record<string, string>,
  log: (l: string) => Promise<void>, verify: () => Promise<Healthy>): Promise<Healthy> {
  const cli = await s.hosts.compose(d.serverId);
  // variables for the file's ${...} interpolation go through env(1): still one argv, no shell
  const envPrefix = Object.keys(env).length ? ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`)] : [];
  const argv = [...envPrefix, ...composeUpArgv(cli.flavor, { projectName: project || d.containerName, file }, { services: [d.containerName], noDeps: true })];
  await log(`${cli.argv.join(' ')} up ${d.containerName}`);
  await s.hosts.exec(d.serverId, argv, { timeoutMs: 300_000 });
  return verify();
}

// A container left by a direct deploy has the name compose wants; compose would refuse to start.
// Only a container Stevedore made for this same deployment is removed.
async function removeForeignContainer(s: Services, d: DeploymentRow, docker: Awaited<ReturnType<Services['hosts']['docker']>>, log: (l: string) => Promise<void>) {
  const c = await docker.getContainer(d.containerName).inspect().catch(() => null);
  if (!c || c.Config.Labels?.['com.docker.compose.project']) return;
  if (c.Config.Labels?.['stevedore.deployment-id'] !== d.id) {
    throw validationError(`a container named ${d.containerName} that Stevedore did not create already runs on the server`, 'containerName',
      'Remove or rename it, or choose another containerName');
  }
  await s.hosts.exec(d.serverId, rm(d.containerName, { force: true }));
  await log(`removed the directly managed container ${d.containerName} to hand it to compose`);
}

async function storeArtifacts(s: Services, deploymentId: string, planId: string | null, imageTag: string, a: ReturnType<typeof buildArtifacts>, withEnv: boolean) {
  await s.db('deployment_artifacts').insert([
    { deploymentId, planId, kind: 'compose', path: a.compose.path, content: a.compose.content, redactedContent: a.compose.content, sha256: a.compose.sha256, imageTag },
    ...!withEnv ? [] : [{ deploymentId, planId, kind: 'env', path: a.env.path, sealedContent: s.secretBox.seal(a.env.content), redactedContent: a.env.redacted, sha256: a.env.sha256, imageTag }],
  ]);
}

/** Rules 3 and 4: the generated path is recorded once, and the change is audited. */
async function recordComposePath(s: Services, d: DeploymentRow, path: string) {
  const n = await s.db('deployments').where({ id: d.id }).whereNull('composePath').update({ composePath: path, updatedAt: s.db.fn.now() });
  if (n) {
    await s.audit.record({
      actorType: 'system', action: 'updateDeploymentComposePath', resourceType: 'deployments', resourceId: d.id,
      environmentId: d.environmentId, details: { field: 'composePath', path, source: 'generator' },
    });
  }
}

/** Rolling back a first deploy: nothing ran before, so the container goes away. */
export async function removeDeploymentContainer(s: Services, d: DeploymentRow, log: (l: string) => Promise<void>): Promise<void> {
  assertContainerName(d.containerName);
  await s.hosts.exec(d.serverId, rm(d.containerName, { force: true }));
  await log(`removed ${d.containerName} (it had no previous version)`);
}

export const composeFileHash = async (s: Services, d: DeploymentRow): Promise<string | null> => {
  if (!d.composePath || !d.composePath.startsWith(`${MANAGED_ROOT}/`)) return null;
  const b = await s.hosts.readFile(d.serverId, d.composePath);
  return b ? sha256(b.toString('utf8')) : null;
};

