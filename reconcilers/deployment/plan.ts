// The deployment reconciler's whole decision, as a pure function. Its result is the drift report
// (GET .../drift), and with driftPolicy 'heal' the steps of a plan that converges it. Dry runs and
// drift reports call this same function: one code path, never two.

export interface DesiredDeployment {
  deploymentId: string;
  containerName: string;
  /** Full image reference with tag; null when the deployment was never deployed (nothing desired). */
  image: string | null;
  /** Image id (sha256:...) recorded at the last successful deploy, if known. */
  imageId: string | null;
  /** sha256 of the env artifact last deployed; null when none was generated. */
  envHash: string | null;
  /** sha256 of the compose file Stevedore wrote; null when it does not own one. */
  composeHash: string | null;
}

export interface ActualContainer {
  exists: boolean;
  running: boolean;
  state: string;
  image: string | null;
  imageId: string | null;
  labels: Record<string, string>;
  /** sha256 of the compose file on disk; null when there is none or it is not ours. */
  composeHash: string | null;
}

export type DriftReason = 'ContainerMissing' | 'ContainerStopped' | 'ImageChanged' | 'ImageIdChanged' | 'EnvChanged' | 'ComposeFileChanged';

export interface Action {
  type: 'redeploy';
  deploymentId: string;
  reason: DriftReason;
  message: string;
}

export const MISSING: ActualContainer = { exists: false, running: false, state: 'missing', image: null, imageId: null, labels: {}, composeHash: null };

export function plan(desired: DesiredDeployment, actual: ActualContainer): Action[] {
  if (!desired.image) return [];
  const act = (reason: DriftReason, message: string): Action => ({ type: 'redeploy', deploymentId: desired.deploymentId, reason, message });
  if (!actual.exists) return [act('ContainerMissing', `container ${desired.containerName} does not exist`)];
  const out: Action[] = [];
  if (actual.image !== desired.image) {
    out.push(act('ImageChanged', `container ${desired.containerName} runs ${actual.image ?? 'an unknown image'}, expected ${desired.image}`));
  } else if (desired.imageId && actual.imageId && actual.imageId !== desired.imageId) {
    out.push(act('ImageIdChanged', `image ${desired.image} of ${desired.containerName} now points to a different image than the one deployed`));
  }
  if (!actual.running) out.push(act('ContainerStopped', `container ${desired.containerName} is ${actual.state}`));
  const labelHash = actual.labels['stevedore.env-hash'];
  if (desired.envHash && labelHash && labelHash !== desired.envHash) {
    out.push(act('EnvChanged', `container ${desired.containerName} was started with a different environment`));
  }
  if (desired.composeHash && actual.composeHash !== desired.composeHash) {
    out.push(act('ComposeFileChanged', actual.composeHash ? 'the compose file on disk was changed by hand' : 'the compose file is missing on disk'));
  }
  return out;
}
