// Compose path rules 5 and 6: a compose file Stevedore does not own. It is read from the server,
// must define the deployment's container and is held to the environment's container policy before
// anything changes; it is never rewritten, only brought up with the image as variables.
import type { Services } from '../../../controller/services.js';
import type { DeploymentRow } from '../../../controller/store/repositories/deployments.js';
import { validationError } from '../../../controller/errors/app-error.js';
import { assertDefinesContainer, parseCompose, type ComposeDocument } from '../../../controller/deploy/compose/validate-compose.js';
import { projectNameOf } from '../../../controller/deploy/compose/generate-compose.js';
import { ownDirOf } from '../../../controller/deploy/container-policy.js';
import type { DeployMode } from './deploy-mode.js';
import { assertAllowedOnServer } from './container-allowed.js';
import { composeUp, noteStopFirst } from './compose-up.js';

export const composeExternalMode: DeployMode = {
  name: 'compose-external',
  // the file is validated before the step counts as having touched the server
  validatesFirst: true,
  async deploy(ctx) {
    const { s, request: r, decision, desired } = ctx;
    const d = r.deployment;
    if (decision.mode !== 'compose-external') throw new TypeError(`${d.containerName}: the compose-external mode needs a compose file Stevedore does not own`);
    await noteStopFirst(ctx);
    // a file Stevedore does not own is held to the same policy (an attached config file could be one)
    await assertAllowedOnServer(s, d.serverId, d.environmentId,
      { compose: { doc: await validateComposeOnDisk(s, d, decision.path), field: 'composePath' }, ownDir: ownDirOf(d.containerName) });
    await r.log(`validated ${decision.path}${decision.shared ? ' (shared by several deployments: never rewritten)' : ''}`);
    await ctx.touch();
    const project = projectNameOf(decision.path).toLowerCase().replace(/[^a-z0-9_-]/g, '');
    return composeUp(s, d, [decision.path], project, { STEVEDORE_IMAGE: desired.image, STEVEDORE_IMAGE_TAG: r.imageTag }, r.log, () => ctx.verify());
  },
};

/** Rules 5 and 6 for a file Stevedore does not own: it must exist and define the container. */
export async function validateComposeOnDisk(s: Pick<Services, 'hosts'>, d: DeploymentRow, path: string): Promise<ComposeDocument> {
  const onDisk = await s.hosts.readFile(d.serverId, path);
  const where = `the compose file ${path} on the server`;
  if (!onDisk) throw validationError(`${where} does not exist`, 'composePath', 'Create it, or clear composePath to let Stevedore manage the container');
  const doc = parseCompose(onDisk.toString('utf8'), where);
  assertDefinesContainer(doc, d.containerName, where);
  return doc;
}
