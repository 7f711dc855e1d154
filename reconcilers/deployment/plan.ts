// The deployment reconciler's whole decision, as a pure function of the desired container and the
// observed one. Deploy steps, dry runs, drift reports and status conditions all call it: one code
// path, never two. Messages name fields and keys, never values (env values may be secrets).
import { REASONS } from '../../controller/model/conditions.js';
import { normalizeVolume, type DesiredContainer } from '../../controller/model/desired-container.js';
import type { ContainerOwner, ObservedContainer } from './observe.js';

export type PlanAction = 'none' | 'create' | 'start' | 'recreate' | 'conflict';

export type DriftReason = typeof REASONS[
  'ContainerMissing' | 'ContainerStopped' | 'ImageChanged' | 'ImageIdChanged' | 'EnvChanged' | 'SpecChanged'
  | 'ComposeFileChanged' | 'ConfigFileChanged' | 'NameConflict' | 'SwitchInterrupted'];

export interface Difference {
  /** image, imageId, env, ports, volumes, command, restart, healthcheck, network, files, composeFile, spec, state, owner, switch */
  field: string;
  reason: DriftReason;
  message: string;
}

export interface ContainerPlan {
  action: PlanAction;
  /** The container is one started outside Stevedore that the deployment adopted (no ownership labels yet). */
  adopted: boolean;
  differences: Difference[];
  /** The tag the container runs (from its image reference), null when unknown or missing. */
  runningTag: string | null;
}

const tagOf = (image: string | null) => (image && /:[^/:]+$/.test(image) ? image.slice(image.lastIndexOf(':') + 1) : null);
const list = (xs: string[]) => (xs.length ? xs.join(', ') : 'none');

/** Carries none of Stevedore's ownership labels: started outside Stevedore (or by a hand-written compose file). */
const unlabelled = (owner: ContainerOwner) => !owner.managed && !owner.deploymentId && !owner.environmentId && !owner.serviceId;

/**
 * The container is the one the deployment adopted: exactly the recorded id, and still without any
 * ownership label (a container another environment or deployment labelled is never adopted).
 */
export function isAdopted(desired: Pick<DesiredContainer, 'adoptedContainerId'>, owner: ContainerOwner, containerId: string | null): boolean {
  return !!desired.adoptedContainerId && containerId === desired.adoptedContainerId && unlabelled(owner);
}

/**
 * Why the container with the deployment's name is not the deployment's own, or null when it is.
 * A container of another environment or deployment, or one Stevedore did not create, is never
 * changed. A hand-written compose file (compose-external) makes unlabelled containers: those are
 * the deployment's. So is the one container (by id) the deployment adopted (isAdopted).
 */
export function ownershipConflict(desired: Pick<DesiredContainer, 'deploymentId' | 'environmentId' | 'mode' | 'serverName' | 'adoptedContainerId'>,
  owner: ContainerOwner, containerName: string, containerId: string | null): string | null {
  const where = `container ${containerName} on server ${desired.serverName}`;
  if (owner.deploymentId === desired.deploymentId && owner.environmentId === desired.environmentId) return null;
  if (isAdopted(desired, owner, containerId)) return null;
  if (!owner.managed && !owner.deploymentId) {
    return desired.mode === 'compose-external' ? null : `${where} was not created by Stevedore`;
  }
  if (owner.environmentId && owner.environmentId !== desired.environmentId) {
    return `${where} belongs to environment ${owner.environmentName ? `"${owner.environmentName}"` : owner.environmentId}`;
  }
  return `${where} belongs to another deployment (${owner.deploymentId ?? 'unknown'}) of this environment`;
}

function fieldDifferences(d: DesiredContainer, o: ObservedContainer): Difference[] {
  const out: Difference[] = [];
  const diff = (field: string, reason: DriftReason, message: string) => out.push({ field, reason, message });
  const name = d.containerName;
  if (o.image !== d.image) {
    diff('image', REASONS.ImageChanged, `container ${name} runs ${tagOf(o.image) ?? o.image ?? 'an unknown image'}, desired ${d.imageTag} (${d.image})`);
  } else if (d.imageId && o.imageId && o.imageId !== d.imageId) {
    diff('imageId', REASONS.ImageIdChanged, `image ${d.image} of ${name} now points to a different image than the one running`);
  }
  if (d.env) {
    const changed = Object.keys(d.env).filter((k) => o.env[k] !== d.env![k]);
    if (changed.length) diff('env', REASONS.EnvChanged, `container ${name} has a different environment: ${changed.join(', ')}`);
  }
  if (d.ports) {
    const want = [...d.ports].sort();
    if (want.join('\n') !== o.ports.join('\n')) diff('ports', REASONS.SpecChanged, `ports of ${name}: running ${list(o.ports)}, desired ${list(want)}`);
  }
  const fileMounts = d.mountFiles ? d.files.map((f) => `${f.hostPath}:${f.targetPath}:ro`) : [];
  if (d.volumes) {
    const want = [...new Set([...d.volumes.map(normalizeVolume), ...fileMounts])].sort();
    // anonymous volumes the image declares are not ours to compare
    const have = o.mounts.filter((m) => m.includes(':') || want.includes(m));
    if (want.join('\n') !== have.join('\n')) diff('volumes', REASONS.SpecChanged, `mounts of ${name}: running ${list(have)}, desired ${list(want)}`);
  } else if (fileMounts.some((m) => !o.mounts.includes(m))) {
    diff('volumes', REASONS.ConfigFileChanged, `config files are not mounted in ${name}`);
  }
  if (d.command && JSON.stringify(o.command) !== JSON.stringify(d.command)) diff('command', REASONS.SpecChanged, `command of ${name} differs`);
  if (d.restart && o.restart !== d.restart) diff('restart', REASONS.SpecChanged, `restart policy of ${name} is ${o.restart ?? 'none'}, desired ${d.restart}`);
  if (d.healthcheck && JSON.stringify(o.healthcheckTest) !== JSON.stringify(d.healthcheck.test)) {
    diff('healthcheck', REASONS.SpecChanged, `healthcheck of ${name} differs`);
  }
  for (const net of d.networkAlias ? d.networks : []) {
    if (!(o.networks[net] ?? []).includes(d.networkAlias!)) diff('network', REASONS.SpecChanged, `container ${name} is not reachable as ${d.networkAlias} on network ${net}`);
  }
  for (const f of d.files) {
    const onDisk = o.files[f.hostPath];
    if (onDisk === f.contentHash) continue;
    diff('files', REASONS.ConfigFileChanged, onDisk === undefined || onDisk === null
      ? `config file ${f.configFileName} (${f.targetPath}) is missing on server ${d.serverName}`
      : `config file ${f.configFileName} (${f.targetPath}) differs from what it should hold`);
  }
  if (d.composeFileHash && o.composeFileHash !== d.composeFileHash) {
    diff('composeFile', REASONS.ComposeFileChanged, o.composeFileHash ? 'the compose file on disk was changed by hand' : 'the compose file is missing on disk');
  }
  // a spec change no compared field shows (a removed env key, a healthcheck interval, a template);
  // an adopted container has no spec hash: its fields were compared one by one above
  if (!out.length && d.mode !== 'compose-external' && o.specHash !== d.specHash && !isAdopted(d, o.owner, o.id)) {
    diff('spec', REASONS.SpecChanged, `container ${name} was created from ${o.specHash ? 'another' : 'an unknown'} spec`);
  }
  return out;
}

export function plan(desired: DesiredContainer, observed: ObservedContainer): ContainerPlan {
  const runningTag = tagOf(observed.image);
  // level-triggered: whatever pass comes next sees the half-done switch (a deploy finishes or undoes it)
  const leftover: Difference[] = observed.leftover ? [{
    field: 'switch', reason: REASONS.SwitchInterrupted,
    message: `container ${observed.leftover.name} on server ${desired.serverName} was left by an interrupted start-first deploy`,
  }] : [];
  if (!observed.exists) {
    return { action: 'create', adopted: false, runningTag, differences: [{ field: 'state', reason: REASONS.ContainerMissing, message: `container ${desired.containerName} does not exist on server ${desired.serverName}` }, ...leftover] };
  }
  const conflict = ownershipConflict(desired, observed.owner, desired.containerName, observed.id);
  if (conflict) return { action: 'conflict', adopted: false, runningTag, differences: [{ field: 'owner', reason: REASONS.NameConflict, message: conflict }] };
  const differences = [...fieldDifferences(desired, observed), ...leftover];
  const adopted = isAdopted(desired, observed.owner, observed.id);
  if (!observed.running) {
    differences.push({ field: 'state', reason: REASONS.ContainerStopped, message: `container ${desired.containerName} is ${observed.state}` });
    return { action: differences.length === 1 ? 'start' : 'recreate', adopted, runningTag, differences };
  }
  return { action: differences.length ? 'recreate' : 'none', adopted, runningTag, differences };
}
