import { policyProblem, type VersionPolicy } from '../../controller/images/version-policy.js';
import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import {
  assertAbsolutePath, assertArgv, assertComposeTemplate, assertEnv, assertHealthCheckTest, assertImageName,
  assertPortSpec, assertVolumeEntry,
} from '../../controller/catalog/validators.js';
import type { ServiceRow, ServiceSpec } from '../../controller/store/repositories/services.js';
import { service as serviceKind } from '../../controller/kinds/service.js';
import type { TypeCommand } from '../../controller/catalog/default-types.js';
import { assertSpecAllowed } from '../../controller/deploy/container-policy.js';
import { assertIngressClaim } from '../../controller/ingress/claims.js';
import { assertVolumePlacement } from '../../controller/volumes/volume-placement.js';

/**
 * Rules the JSON schema cannot express, run after it: value formats that reach a server, and
 * references that must stay inside the environment.
 */
/** `current`: the stored service a PATCH changes (rules across fields see the result). */
export async function checkServiceSpec(s: Services, environmentId: string, spec: ServiceSpec, current?: ServiceRow): Promise<void> {
  spec.ports?.forEach((p, i) => assertPortSpec(p, `ports.${i}`));
  spec.volumes?.forEach((v, i) => assertVolumeEntry(v, `volumes.${i}`));
  if (spec.env) assertEnv(spec.env);
  if (spec.command) assertArgv(spec.command, 'command');
  if (spec.healthCheck) assertHealthCheckTest(spec.healthCheck.test);
  if (spec.composeTemplate) assertComposeTemplate(spec.composeTemplate);
  const problem = serviceKind.problem!({ ...current, ...spec });
  if (problem) throw validationError(problem.message, problem.field);
  // what is written now: a policy tightened later is caught when a plan renders the container
  await assertSpecAllowed(s, environmentId, { volumes: spec.volumes, composeTemplate: spec.composeTemplate }, spec.name ?? current?.name ?? 'service');
  if (spec.ingress) await assertIngressClaim(s, { environmentId, serviceId: current?.id ?? null, serviceName: spec.name ?? current?.name ?? '', ingress: spec.ingress });
  if (spec.volumes) {
    // a volume pins the service to its server: the deployments it has must already be there
    const deployments = current ? await s.deployments.listByService(current.id) : [];
    await assertVolumePlacement(s, environmentId, spec.volumes, deployments.map((d) => d.serverId));
  }
  if (spec.containerImageId) {
    const image = await s.containerImages.findById(spec.containerImageId);
    if (!image || image.environmentId !== environmentId) {
      throw validationError('containerImageId names no container image of this environment', 'containerImageId');
    }
  }
  if (spec.type) {
    if (!(await s.serviceTypes.findByName(spec.type))) {
      throw validationError(`type '${spec.type}' is not a known service type`, 'type', 'GET /api/settings/service-types lists them');
    }
  }
}

export async function checkDeploymentSpec(s: Services, environmentId: string, spec: { serverId?: string; composePath?: string | null }) {
  if (spec.composePath) assertAbsolutePath(spec.composePath, 'composePath');
  if (spec.serverId) {
    const serverEnv = await s.deployments.serverEnvironment(spec.serverId);
    if (serverEnv !== environmentId) throw validationError('serverId names no server of this environment', 'serverId');
  }
}

export async function checkImageSpec(s: Services, environmentId: string, spec: { imageName?: string; registryConnectionId?: string | null; policy?: VersionPolicy | null }) {
  if (spec.imageName !== undefined) assertImageName(spec.imageName);
  const problem = spec.policy ? policyProblem(spec.policy) : null;
  if (problem) throw validationError(`policy: ${problem}`, 'policy');
  if (spec.registryConnectionId) {
    const regEnv = await s.containerImages.registryEnvironment(spec.registryConnectionId);
    if (regEnv !== environmentId) {
      throw validationError('registryConnectionId names no registry connection of this environment', 'registryConnectionId');
    }
  }
}

export function checkTypeCommands(commands: TypeCommand[] | undefined): void {
  const seen = new Set<string>();
  commands?.forEach((c, i) => {
    if (seen.has(c.name)) throw validationError(`commands.${i}.name '${c.name}' is used twice`, `commands.${i}.name`);
    seen.add(c.name);
    assertArgv(c.command, `commands.${i}.command`);
  });
}
