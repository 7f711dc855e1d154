// The container policy of an environment, like Kubernetes' Pod Security Standards: what a
// container may ask of the server it runs on. `baseline` (the default) refuses what hands a
// container the server itself (its root filesystem, its configuration and keys, the Docker
// socket, kernel interfaces, host namespaces, extra capabilities, devices, unconfined security
// profiles); `privileged` allows everything. `allowedHostPaths` are host path prefixes an
// environment admin allows to be bind-mounted even where baseline refuses them.
//
// One pure decision, called at every entrance: the service spec and compose templates written
// through the API (api/routes/catalog-checks.ts, api/routes/compose.ts), manifests
// (controller/manifests/apply.ts) and the deploy, which checks again what it is about to run
// (reconcilers/deployment/effects/container-allowed.ts): a policy tightened after a write stops the
// deploy with the reason instead of running it.
import { posix } from 'node:path';
import { validationError } from '../errors/app-error.js';
import { MANAGED_ROOT } from './compose/compose-path-rules.js';
import { fillComposeTemplate } from './compose/generate-compose.js';
import { readYamlValue } from '../yaml/read-yaml.js';
import { environmentOfVolumeName, type VolumeEntry } from '../model/volume-mount.js';

export const CONTAINER_POLICIES = ['baseline', 'privileged'] as const;
export type ContainerPolicyName = typeof CONTAINER_POLICIES[number];

export interface ContainerPolicy {
  containerPolicy: ContainerPolicyName;
  /** Host path prefixes that may be bind-mounted even where baseline refuses them. */
  allowedHostPaths: string[];
  /** More host paths baseline refuses (the controller's state directory, for a controller on a server it manages). */
  sensitivePaths?: Array<{ path: string; why: string }>;
}

export const DEFAULT_CONTAINER_POLICY: ContainerPolicy = { containerPolicy: 'baseline', allowedHostPaths: [] };

/** Host paths baseline never bind-mounts: the path, anything inside it (but for `/`), and any parent of it. */
export const SENSITIVE_HOST_PATHS: ReadonlyArray<{ path: string; why: string }> = [
  { path: '/', why: "the server's whole filesystem" },
  { path: '/etc', why: "the server's configuration (users, password hashes, SSH)" },
  { path: '/root', why: 'a home directory (SSH keys)' },
  { path: '/home', why: 'the home directories (SSH keys)' },
  { path: '/boot', why: 'the kernel and boot loader' },
  { path: '/proc', why: "the kernel's view of the server's processes" },
  { path: '/sys', why: "the kernel's interfaces" },
  { path: '/dev', why: "the server's devices" },
  { path: '/var/lib/docker', why: "Docker's data (every container's files)" },
  { path: '/var/run/docker.sock', why: 'the Docker socket (root on the server)' },
  { path: '/run/docker.sock', why: 'the Docker socket (root on the server)' },
  { path: '/var/run/containerd', why: "containerd's socket (root on the server)" },
  { path: '/run/containerd', why: "containerd's socket (root on the server)" },
  { path: posix.dirname(MANAGED_ROOT), why: "Stevedore's files on the server (other deployments' files and secrets)" },
];

/** Docker's default capability set: cap_add of any other is refused by baseline. */
export const DOCKER_DEFAULT_CAPABILITIES = [
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE',
  'NET_RAW', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
] as const;

/** One thing a policy refuses: the field it is in, and a message naming the policy. */
export interface PolicyRefusal { field: string; message: string }

export const CONTAINER_POLICY_HINT = 'An environment admin can allow it: containerPolicy privileged, or the host path in allowedHostPaths '
  + '(PATCH /api/environments/{envId}/settings/operations; docs/deploys.md#container-policy)';

/** What a container asks of its server: the service's volumes, and the compose document that shapes it. */
export interface ContainerRequest {
  /** The service spec's volumes (short syntax; managed `{volume}` entries are this environment's by construction), field `volumes.<i>`. */
  volumes?: readonly VolumeEntry[] | null;
  /** A compose document (a template with its tokens filled, or a hand-written file), parsed. */
  compose?: { doc: unknown; field: string } | null;
  /** The directory its relative host paths resolve against (the deployment's own, which stays allowed). */
  ownDir: string;
  /** The environment it runs in: the managed volumes of any other are refused (absent: not checked). */
  environmentId?: string;
}

/** The directory of a deployment's generated compose file, where `./` of its template points. */
export const ownDirOf = (containerName: string) => posix.join(MANAGED_ROOT, containerName);

// ---- host paths --------------------------------------------------------------------------

/** Compose interpolates `${X}` and `$X` on the server (`$$` is a literal dollar). */
const interpolates = (s: string) => s.replaceAll('$$', '').includes('$');

const normalise = (p: string) => posix.normalize(p).replace(/\/+$/, '') || '/';
const inside = (p: string, root: string) => root === '/' || p === root || p.startsWith(`${root}/`);

/** A bind source the policy allowed as written, to look at again once the server resolved its symlinks. */
export interface BindSource { field: string; where: string; path: string }

interface Walk { policy: ContainerPolicy; ownDir: string; binds: BindSource[]; field: string; environmentId?: string }

/** Why baseline refuses to bind-mount `source` (a host path as written), or null when it may (then it is recorded in `w.binds`). */
function hostPathProblem(source: string, w: Walk, where: string): string | null {
  if (interpolates(source)) return `the host path ${source} uses \${…} interpolation, which compose resolves on the server where the policy cannot check it`;
  if (source.startsWith('~')) return `the host path ${source} starts with ~, the home directory of the server's SSH user`;
  if (/[\u0000-\u001f\u007f]/.test(source)) return `the host path ${JSON.stringify(source)} holds a control character`;
  const p = source.startsWith('/') ? normalise(source) : normalise(posix.join(w.ownDir, source));
  const why = pathProblem(p, p === source ? source : `${source} (${p})`, w.policy, w.ownDir);
  if (!why) w.binds.push({ field: w.field, where, path: p });
  return why;
}

/** Why baseline refuses the absolute, normalised host path `p` (`shown` as the message names it). */
function pathProblem(p: string, shown: string, policy: ContainerPolicy, ownDir: string): string | null {
  if (policy.allowedHostPaths.some((a) => inside(p, normalise(a)))) return null;
  if (inside(p, ownDir)) return null;
  for (const s of [...SENSITIVE_HOST_PATHS, ...policy.sensitivePaths ?? []]) {
    const root = normalise(s.path);
    if (p === root) return `the host path ${shown} is ${s.why}`;
    if (root !== '/' && inside(p, root)) return `the host path ${shown} is inside ${root}, ${s.why}`;
    if (inside(root, p)) return `the host path ${shown} holds ${root}, ${s.why}`;
  }
  return null;
}

/** A bind source of short syntax (`src:dst[:mode]`): compose and Docker take one starting with `/`, `.` or `~` as a host path. */
function shortSyntaxSource(spec: string): string | null {
  const parts = spec.split(':');
  if (parts.length < 2) return null;
  const src = parts[0];
  return src.startsWith('/') || src.startsWith('.') || src.startsWith('~') || interpolates(src) ? src : null;
}

/** Why a named volume source is refused: a managed volume of another environment (docs/volumes.md). */
function volumeNameProblem(source: string, environmentId: string | undefined): string | null {
  if (!environmentId) return null;
  const owner = environmentOfVolumeName(source);
  return owner && owner !== environmentId ? `the volume ${source} is a managed volume of another environment` : null;
}

/** The named-volume source of short syntax (`name:dst[:mode]`), or null (a host path, an anonymous volume). */
export const namedSource = (spec: string): string | null => {
  const parts = spec.split(':');
  return parts.length >= 2 && shortSyntaxSource(spec) === null ? parts[0] : null;
};

// ---- compose documents -------------------------------------------------------------------

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);

/** YAML merge keys (`<<`), as compose applies them: the YAML parser here keeps them as plain keys. */
function applyMerges(v: unknown, depth = 0): unknown {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => applyMerges(x, depth + 1));
  if (!isMap(v)) return v;
  const out: Record<string, unknown> = {};
  for (const m of listOf(v['<<'])) if (isMap(m)) Object.assign(out, applyMerges(m, depth + 1));
  for (const [k, x] of Object.entries(v)) if (k !== '<<') out[k] = applyMerges(x, depth + 1);
  return out;
}

/** `privileged: true` and what compose also reads as true ("true", "yes", "1", or a value it interpolates). */
const truthy = (v: unknown) => v === true || v === 1 || (typeof v === 'string' && (/^(true|yes|on|y|1)$/i.test(v.trim()) || interpolates(v)));

const HOST_NAMESPACE_KEYS: Record<string, string> = {
  network_mode: 'network', net: 'network', pid: 'PID', ipc: 'IPC', uts: 'UTS', userns_mode: 'user', cgroup: 'cgroup',
};

const UNCONFINED = /^(?:(?:seccomp|apparmor|systempaths)\s*[:=]\s*unconfined|label\s*[:=]\s*disable)$/i;

function serviceProblems(name: string, raw: Record<string, unknown>, w: Walk): Array<[string, string]> {
  const svc = applyMerges(raw) as Record<string, unknown>;
  const out: Array<[string, string]> = [];
  const at = (key: string) => `services.${name}.${key}`;
  const path = (key: string, source: unknown) => {
    if (typeof source !== 'string') return;
    const why = hostPathProblem(source, w, key);
    if (why) out.push([key, why]);
  };
  if (truthy(svc.privileged)) out.push([at('privileged'), 'privileged gives the container every device and capability of the server']);
  for (const [key, ns] of Object.entries(HOST_NAMESPACE_KEYS)) {
    const v = svc[key];
    if (typeof v !== 'string') continue;
    if (v.trim() === 'host') out.push([at(key), `${key}: host shares the server's ${ns} namespace`]);
    else if (/^container:/.test(v.trim())) out.push([at(key), `${key}: ${v} joins the ${ns} namespace of a container outside this service`]);
    else if (interpolates(v)) out.push([at(key), `${key}: ${v} uses \${…} interpolation, which compose resolves on the server where the policy cannot check it`]);
  }
  listOf(svc.cap_add).forEach((c, i) => {
    const cap = String(c).trim().toUpperCase().replace(/^CAP_/, '');
    if (!(DOCKER_DEFAULT_CAPABILITIES as readonly string[]).includes(cap)) out.push([at(`cap_add.${i}`), `the capability ${String(c)} is not in Docker's default set`]);
  });
  if (listOf(svc.devices).length) out.push([at('devices'), "devices hand the container devices of the server"]);
  if (listOf(svc.device_cgroup_rules).length) out.push([at('device_cgroup_rules'), 'device_cgroup_rules let the container reach devices of the server']);
  if (svc.gpus !== undefined) out.push([at('gpus'), 'gpus hand the container devices of the server']);
  const deploy = svc.deploy;
  if (isMap(deploy) && isMap(deploy.resources) && isMap(deploy.resources.reservations) && deploy.resources.reservations.devices !== undefined) {
    out.push([at('deploy.resources.reservations.devices'), 'reserved devices hand the container devices of the server']);
  }
  listOf(svc.security_opt).forEach((o, i) => {
    const s = String(o).trim();
    if (UNCONFINED.test(s)) out.push([at(`security_opt.${i}`), `security_opt ${s} runs the container unconfined`]);
    else if (interpolates(s)) out.push([at(`security_opt.${i}`), `security_opt ${s} uses \${…} interpolation, which compose resolves on the server where the policy cannot check it`]);
  });
  listOf(svc.volumes).forEach((v, i) => {
    if (typeof v === 'string') return path(at(`volumes.${i}`), shortSyntaxSource(v));
    if (!isMap(v)) return;
    const source = typeof v.source === 'string' ? v.source : null;
    if (source === null) return;
    const bind = v.type === 'bind' || (v.type === undefined && shortSyntaxSource(`${source}:/x`) !== null);
    if (bind) path(at(`volumes.${i}.source`), source);
    else if (interpolates(source)) path(at(`volumes.${i}.source`), source);
  });
  listOf(svc.volumes_from).forEach((v, i) => {
    if (typeof v === 'string' && /^container:/.test(v.trim())) out.push([at(`volumes_from.${i}`), `volumes_from ${v} mounts the volumes of a container outside this service`]);
  });
  listOf(svc.env_file).forEach((f, i) => path(at(`env_file.${i}`), isMap(f) ? f.path : f));
  const build = svc.build;
  const context = isMap(build) ? build.context : build;
  if (typeof context === 'string' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(context) && !context.startsWith('git@')) path(at('build.context'), context);
  if (isMap(svc.extends) && svc.extends.file !== undefined) {
    out.push([at('extends.file'), 'extends.file brings in another compose file, which the policy cannot check']);
  }
  return out;
}

/** Everything baseline refuses in a compose document, each with where it is. */
function composeProblems(doc: unknown, w: Walk): Array<[string, string]> {
  if (!isMap(doc)) return [];
  const out: Array<[string, string]> = [];
  if (doc.include !== undefined) out.push(['include', 'include brings in other compose files, which the policy cannot check']);
  if (isMap(doc.services)) {
    for (const [name, svc] of Object.entries(doc.services)) if (isMap(svc)) out.push(...serviceProblems(name, svc, w));
  }
  // a named volume of the local driver with `device` is a bind mount of that host path; one named
  // as Docker knows it (`name:`, or `external`) may be another environment's managed volume
  if (isMap(doc.volumes)) {
    for (const [name, vol] of Object.entries(doc.volumes)) {
      const external = isMap(vol) ? vol.external : undefined;
      const dockerName = isMap(vol) && typeof vol.name === 'string' ? vol.name
        : isMap(external) && typeof external.name === 'string' ? external.name : truthy(external) ? name : null;
      const fenced = dockerName === null ? null : volumeNameProblem(dockerName, w.environmentId);
      if (fenced) out.push([`volumes.${name}`, fenced]);
      const device = isMap(vol) && isMap(vol.driver_opts) ? vol.driver_opts.device : undefined;
      if (typeof device !== 'string' || !(device.startsWith('/') || device.startsWith('.') || device.startsWith('~') || interpolates(device))) continue;
      const where = `volumes.${name}.driver_opts.device`;
      const why = hostPathProblem(device, w, where);
      if (why) out.push([where, why]);
    }
  }
  // file-based secrets and configs are bind mounts of host files
  for (const top of ['secrets', 'configs']) {
    const block = doc[top];
    if (!isMap(block)) continue;
    for (const [name, entry] of Object.entries(block)) {
      if (!isMap(entry) || typeof entry.file !== 'string') continue;
      const where = `${top}.${name}.file`;
      const why = hostPathProblem(entry.file, w, where);
      if (why) out.push([where, why]);
    }
  }
  return out;
}

// ---- the decision ------------------------------------------------------------------------

const refusal = (policy: ContainerPolicy, field: string, where: string, why: string): PolicyRefusal => ({
  field, message: `${where}: ${why}; the container policy ${policy.containerPolicy} of this environment refuses it`,
});

/** What the policy refuses (empty: it may run), and the host paths it allowed as written. */
function walk(req: ContainerRequest, policy: ContainerPolicy): { refusals: PolicyRefusal[]; binds: BindSource[] } {
  const refusals: PolicyRefusal[] = [];
  const binds: BindSource[] = [];
  if (policy.containerPolicy === 'privileged') return { refusals, binds };
  (req.volumes ?? []).forEach((v, i) => {
    if (typeof v !== 'string') return;
    const source = shortSyntaxSource(v);
    const field = `volumes.${i}`;
    const named = namedSource(v);
    const why = source === null ? (named === null ? null : volumeNameProblem(named, req.environmentId))
      : hostPathProblem(source, { policy, ownDir: req.ownDir, binds, field }, field);
    if (why) refusals.push(refusal(policy, field, field, why));
  });
  if (req.compose) {
    const { field } = req.compose;
    for (const [where, why] of composeProblems(req.compose.doc, { policy, ownDir: req.ownDir, binds, field, environmentId: req.environmentId })) {
      refusals.push(refusal(policy, field, `${field}: ${where}`, why));
    }
  }
  return { refusals, binds };
}

/** Everything the policy refuses in what a container asks of its server (empty: it may run). */
export const containerPolicyRefusals = (req: ContainerRequest, policy: ContainerPolicy): PolicyRefusal[] => walk(req, policy).refusals;

/** The host paths a container bind-mounts that the policy allows as written (none under privileged). */
export const bindSourcesOf = (req: ContainerRequest, policy: ContainerPolicy): BindSource[] => walk(req, policy).binds;

/**
 * Docker follows symlinks of a bind source on the server: `/srv/data/link` may be `/`. Given each
 * source's path with its symlinks resolved there (`realpath -m`, same order), what baseline refuses.
 */
export function resolvedPathRefusals(binds: BindSource[], resolved: string[], policy: ContainerPolicy, ownDir: string): PolicyRefusal[] {
  const out: PolicyRefusal[] = [];
  binds.forEach((b, i) => {
    const real = resolved[i] === undefined ? null : normalise(resolved[i]);
    if (real === null || !real.startsWith('/')) {
      out.push(refusal(policy, b.field, b.where === b.field ? b.field : `${b.field}: ${b.where}`, `the host path ${b.path} could not be resolved on the server (realpath -m, of GNU coreutils)`));
      return;
    }
    if (real === b.path) return;
    const why = pathProblem(real, `${b.path} (a symlink to ${real} on the server)`, policy, ownDir);
    if (why) out.push(refusal(policy, b.field, b.where === b.field ? b.field : `${b.field}: ${b.where}`, why));
  });
  return out;
}

/** Throws the first refusal as a 400 VALIDATION_ERROR on its field. */
export function assertContainerPolicy(req: ContainerRequest, policy: ContainerPolicy): void {
  const [first] = containerPolicyRefusals(req, policy);
  if (first) throw validationError(first.message, first.field, CONTAINER_POLICY_HINT);
}

/** The policy from an environment's operations settings (defaults filled in). */
export function policyOfSettings(ops: Partial<Pick<ContainerPolicy, 'containerPolicy' | 'allowedHostPaths'>> | undefined,
  sensitivePaths: ContainerPolicy['sensitivePaths'] = []): ContainerPolicy {
  return {
    containerPolicy: ops?.containerPolicy === 'privileged' ? 'privileged' : 'baseline',
    allowedHostPaths: Array.isArray(ops?.allowedHostPaths) ? ops.allowedHostPaths.filter((p): p is string => typeof p === 'string' && p.startsWith('/')) : [],
    sensitivePaths,
  };
}

/** What a service spec asks, as it is written: its volumes and its compose template (tokens filled for `containerName`). */
export function requestOfSpec(spec: { volumes?: readonly VolumeEntry[] | null; composeTemplate?: string | null }, containerName: string,
  tokens: { image: string; imageTag: string } = { image: 'image', imageTag: 'tag' }): ContainerRequest {
  const template = spec.composeTemplate
    ? readYamlValue(fillComposeTemplate(spec.composeTemplate, { containerName, ...tokens }), 'composeTemplate', 'composeTemplate')
    : null;
  return { volumes: spec.volumes ?? null, compose: template === null ? null : { doc: template, field: 'composeTemplate' }, ownDir: ownDirOf(containerName) };
}

/** What reading an environment's policy needs (structural: the store's settings and the config). */
export interface PolicyReads {
  settings: { get<T>(environmentId: string, module: string): Promise<T> };
  config: { stateDir: string };
}

/** An environment's container policy now; the controller's own state directory is refused too. */
export async function containerPolicyOf(s: PolicyReads, environmentId: string): Promise<ContainerPolicy> {
  return policyOfSettings(await s.settings.get<Partial<ContainerPolicy>>(environmentId, 'operations'), controllerPaths(s.config));
}

/** The controller's own paths baseline refuses too: its state directory, for a controller on a server it manages. */
export const controllerPaths = (config: { stateDir: string }): NonNullable<ContainerPolicy['sensitivePaths']> =>
  (posix.isAbsolute(config.stateDir) ? [{ path: config.stateDir, why: "the controller's state directory (its keys), on a server that runs the controller" }] : []);

/** The write-time check of a service spec (API and manifests): 400 naming the field and the policy. */
export async function assertSpecAllowed(s: PolicyReads, environmentId: string, spec: { volumes?: readonly VolumeEntry[] | null; composeTemplate?: string | null },
  containerName: string): Promise<void> {
  if (!spec.volumes?.length && !spec.composeTemplate) return;
  assertContainerPolicy({ ...requestOfSpec(spec, containerName), environmentId }, await containerPolicyOf(s, environmentId));
}
