// Compose path rules 3 and 4 (controller/deploy/compose/compose-path-rules.ts): Stevedore writes
// the deployment's compose file and its environment file under its own root, records them as the
// step's artifacts, and brings the one service up with compose.
import { posix } from 'node:path';
import type Docker from 'dockerode';
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { rm } from '../../../controller/hosts/commands/docker.js';
import { mkdirP } from '../../../controller/hosts/commands/files.js';
import { projectNameOf, type ComposeFiles } from '../../../controller/deploy/compose/generate-compose.js';
import type { DeployMode, DeployRequest } from './deploy-mode.js';
import { composeUp, noteStopFirst } from './compose-up.js';

export const composeGeneratedMode: DeployMode = {
  name: 'compose-generated',
  async deploy(ctx) {
    const { s, request: r, decision, files, docker } = ctx;
    const d = r.deployment;
    if (decision.mode !== 'compose-generated' || !files) throw new TypeError(`${d.containerName}: the compose-generated mode needs its generated files`);
    await noteStopFirst(ctx);
    await writeComposeFiles(s, r, d, files);
    if (decision.recordPath) await recordComposePath(s, d, decision.path);
    const project = projectNameOf(decision.path);
    await handDirectContainerToCompose(s, d, docker, project, r.log);
    return composeUp(s, d, [files.compose.path, files.env.path], project, {}, r.log, () => ctx.verify());
  },
};

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
