// The environment's container policy (controller/deploy/container-policy.ts) on what a deploy or
// a run is about to start, checked on the server too, before anything there changes.
import type { Services } from '../../../controller/services.js';
import { validationError } from '../../../controller/errors/app-error.js';
import { canonicalPaths } from '../../../controller/hosts/commands/files.js';
import {
  assertContainerPolicy, bindSourcesOf, CONTAINER_POLICY_HINT, containerPolicyOf, requestOfSpec, resolvedPathRefusals,
  type ContainerRequest, type PolicyReads,
} from '../../../controller/deploy/container-policy.js';
import type { LoadedDesired } from '../load-desired.js';

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
export async function assertAllowedOnServer(s: PolicyReads & Pick<Services, 'hosts'>, serverId: string, environmentId: string, req: ContainerRequest): Promise<void> {
  const policy = await containerPolicyOf(s, environmentId);
  // the managed volumes of other environments are refused too (docs/volumes.md)
  req = { ...req, environmentId };
  assertContainerPolicy(req, policy);
  const binds = bindSourcesOf(req, policy);
  if (!binds.length) return;
  const out = await s.hosts.exec(serverId, canonicalPaths(binds.map((b) => b.path)), { check: false });
  const resolved = out.code === 0 ? out.stdout.split('\n').slice(0, binds.length) : [];
  const [first] = resolvedPathRefusals(binds, resolved, policy, req.ownDir);
  if (first) throw validationError(first.message, first.field, CONTAINER_POLICY_HINT);
}
