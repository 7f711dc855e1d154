import { assertComposeTemplate, assertVolumeEntry, NAME_PATTERN, TAG_PATTERN, TYPE_NAME_PATTERN } from '../catalog/validators.js';
import { assertTargetPath } from '../config-files/target-path.js';
import { isAppError } from '../errors/app-error.js';
import type { KindDescriptor } from './kind.js';
import type { VolumeEntry } from '../model/volume-mount.js';
import { labelsProblem, serverSelectorSchema } from '../placement/labels.js';
import { rolloutProblem, rolloutSchema } from '../model/rollout.js';
import { KEY_PATTERN, name } from './manifest-fields.js';
import { HOST_PATTERN, ingressProblem, PATH_PATTERN } from '../model/ingress.js';
import { DEFAULT_DRAIN_SEC, DEFAULT_UPDATE_ORDER, UPDATE_ORDERS, updateOrderProblem } from '../deploy/update-order.js';
import { DEFAULT_RESTART_POLICY, RESTART_POLICIES, RESTART_POLICY_PATTERN } from '../model/restart-policy.js';
import {
  bool, condition, arrayOf, enumOf, int, nullable, nullableTimestamp, object, resourceSchemas, str, timestamp, uuid, type Schema,
} from './schema.js';

const argv = (maxItems = 64) => arrayOf(str({ maxLength: 4096 }), { minItems: 1, maxItems });

export const healthCheckSchema = object({
  test: argv(),
  intervalSec: int(1, 3600),
  timeoutSec: int(1, 3600),
  retries: int(0, 100),
  startPeriodSec: int(0, 3600),
}, ['test']);

/** Where a service is reached from outside through the proxy on its servers (docs/ingress.md). */
export const ingressSchema = object({
  hosts: arrayOf(str({ maxLength: 253, pattern: HOST_PATTERN }), {
    minItems: 1, maxItems: 100, description: 'Domain names the proxy serves this service on, e.g. app.example.com',
  }),
  port: int(1, 65535, { description: 'The container port the proxy forwards to' }),
  path: str({ maxLength: 1000, pattern: PATH_PATTERN, default: '/', description: 'Path prefix the service answers under (default /)' }),
  tls: {
    oneOf: [enumOf('auto', 'off'), object({ secretRef: str({ pattern: KEY_PATTERN, maxLength: 255, description: 'The key of a secret of the environment holding the PEM certificate chain and then the private key' }) }, ['secretRef'])],
    default: 'auto',
    description: 'auto: a certificate from ACME; off: plain HTTP only; {secretRef}: the certificate and key in a secret of the environment',
  },
  redirectHttp: { type: 'boolean', description: 'Redirect plain HTTP to HTTPS (default: true when TLS)' },
}, ['hosts', 'port']);

const schemas = resourceSchemas({
  writable: {
    name: str({ pattern: NAME_PATTERN }),
    containerImageId: uuid,
    imageTag: nullable(str({ pattern: TAG_PATTERN })),
    type: nullable(str({ pattern: TYPE_NAME_PATTERN })),
    env: {
      type: 'object', maxProperties: 500,
      additionalProperties: str({ maxLength: 65536 }), default: {},
    },
    ports: arrayOf(str({ maxLength: 100 }), { maxItems: 100, default: [] }),
    volumes: arrayOf({
      oneOf: [
        str({ maxLength: 1024, description: 'Docker short syntax: source:/target[:mode] or /target' }),
        object({
          volume: str({ minLength: 1, maxLength: 63, pattern: NAME_PATTERN, description: 'Name of a Volume of this environment (the service is placed on its server)' }),
          mount: str({ minLength: 1, maxLength: 1024, pattern: '^/', description: 'Where it is mounted in the container' }),
          readOnly: bool,
        }, ['volume', 'mount']),
      ],
    }, { maxItems: 100, default: [] }),
    command: nullable(argv(256)),
    healthCheck: nullable(healthCheckSchema),
    composeTemplate: nullable(str({ maxLength: 262144 })),
    updateOrder: {
      ...enumOf(...UPDATE_ORDERS), default: DEFAULT_UPDATE_ORDER,
      description: 'stop-first: the old container stops, then the new one starts. start-first: the new one starts beside the old '
        + 'and takes over its network alias once healthy (no fixed host port; docs/deploys.md)',
    },
    drainSec: int(0, 600, { default: DEFAULT_DRAIN_SEC, description: 'start-first: seconds between the old container leaving the network and its stop' }),
    restartPolicy: str({
      pattern: RESTART_POLICY_PATTERN, default: DEFAULT_RESTART_POLICY, 'x-suggestions': [...RESTART_POLICIES, 'on-failure:3'],
      description: 'When Docker restarts the container, as docker run --restart takes it: no, always, unless-stopped (default), '
        + 'on-failure, or on-failure:N (at most N restarts, 1-9999, after it exits non-zero). A compose template or a hand-written compose file decides it instead',
    }),
    serverSelector: nullable(serverSelectorSchema),
    rollout: nullable(rolloutSchema),
    ingress: nullable(ingressSchema),
  },
  readOnly: {
    id: uuid, environmentId: uuid, generation: int(1), status: { type: 'object' }, source: { type: 'object' },
    observedGeneration: nullable(int(1)), conditions: arrayOf(condition),
    desiredRevision: nullable(int(1, undefined, { description: 'The revision the spec asks for (docs/revisions.md)' })),
    currentRevision: nullable(int(1, undefined, { description: 'The newest revision that fully succeeded: the last good state' })),
    failedRevision: nullable(object({ revision: int(1), reason: str() }, ['revision', 'reason'])),
    deployments: arrayOf({ type: 'object' }), createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['name', 'containerImageId'],
});

/** A deployment (one container of a service on one server): part of its service in manifests. */
export const deploymentSchemas = resourceSchemas({
  writable: {
    serverId: uuid,
    containerName: str({ pattern: NAME_PATTERN }),
    composePath: nullable(str({ maxLength: 1024 })),
  },
  readOnly: {
    id: uuid, serviceId: uuid, environmentId: uuid,
    status: str({ description: 'What the container was last seen doing: pending (never deployed), running, stopped, missing (not on the server), failed, unknown (the server could not be asked)' }),
    statusNote: nullable(str({ description: 'What the environment\'s driftPolicy does about a missing or stopped container: "not restored: driftPolicy warn", "to be restored: driftPolicy heal", "not watched: driftPolicy off"' })),
    imageTag: nullable(str()),
    previousImageTag: nullable(str()), imageDigest: nullable(str()), exposedPorts: arrayOf({}),
    lastDeployedAt: nullableTimestamp, generation: int(1), conditions: arrayOf(condition),
    observedGeneration: nullable(int(1)), failedGeneration: nullable(int(1)),
    revision: nullable(int(1, undefined, { description: 'The revision of its service the container runs' })),
    adoptedContainerId: nullable(str({ description: 'A container started outside Stevedore that this deployment adopted as it runs (docs/git-sources.md)' })),
    source: { type: 'object' }, containerId: nullable(str()), createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['serverId', 'containerName'],
});

// The API's own field schemas, so a manifest and the API accept the same values.
const apiService = schemas.create.properties as Record<string, Schema>;
const apiDeployment = deploymentSchemas.create.properties as Record<string, Schema>;
const { name: _n, containerImageId: _c, imageTag, ...serviceFields } = apiService;

const deployment: Schema = object({
  server: name('Name of the Server this container runs on'),
  containerName: { ...apiDeployment.containerName, description: 'Default: the service name' },
  composePath: apiDeployment.composePath,
  adoptContainerId: str({
    pattern: '^[0-9a-f]{64}$',
    description: 'Adopt this running container (its full id; one started outside Stevedore, without Stevedore\'s labels) as it runs: '
      + 'while it matches the spec it is not recreated; the next rollout recreates it under Stevedore\'s labels (stevedore export writes it)',
  }),
}, ['server']);

const attachedConfigFile: Schema = object({
  name: name('Name of a ConfigFile'),
  targetPath: str({ minLength: 2, maxLength: 1000, pattern: '^/', description: 'Absolute path inside the container' }),
}, ['name', 'targetPath']);

/** What the store holds for the optional template fields a manifest leaves out. */
const DEFAULTS = {
  type: null, env: {}, ports: [], volumes: [], command: null, healthCheck: null, composeTemplate: null,
  updateOrder: DEFAULT_UPDATE_ORDER, drainSec: DEFAULT_DRAIN_SEC, restartPolicy: DEFAULT_RESTART_POLICY, serverSelector: null, rollout: null,
  ingress: null,
};

/** A selector's labels follow the label rules (a manifest's selector and deployments together: manifestProblems). */
function selectorProblem(fields: Record<string, any>): { field: string; message: string } | null {
  const message = fields.serverSelector ? labelsProblem(fields.serverSelector.matchLabels) : null;
  return message ? { field: 'serverSelector', message } : null;
}

/** Host names and path beyond the schema (which host another service claims needs the store: catalog checks). */
function ingressRule(fields: Record<string, any>): { field: string; message: string } | null {
  return ingressProblem(fields.ingress);
}

/** Steps belong to canary, and a canary starts with a wave. */
function rolloutRule(fields: Record<string, any>): { field: string; message: string } | null {
  const message = rolloutProblem(fields.rollout);
  return message ? { field: 'rollout', message } : null;
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

/** Deployments in comparable form: the container name defaults to the service's, sorted. */
export function normaliseDeployments(service: string, list: Array<{ server: string; containerName?: string; composePath?: string | null; adoptContainerId?: string | null }>) {
  return list.map((d) => ({
    server: d.server, containerName: d.containerName ?? service, composePath: d.composePath ?? null,
    // only when set: every other deployment compares as it always did
    ...(d.adoptContainerId && { adoptContainerId: d.adoptContainerId }),
  })).sort(byJson);
}

/**
 * What the API checks beyond the schema (api/routes/catalog-checks.ts, config attachments) for
 * the values of a manifest that reach a server: volume specs and config-file targets (never a
 * path the kernel or Docker own) and the compose template (YAML within the parser's limits).
 */
function manifestProblems(spec: Record<string, any>): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const check = (path: string[], assert: () => void) => {
    try {
      assert();
    } catch (e) {
      if (!isAppError(e)) throw e;
      problems.push({ path, message: e.hint ? `${e.message} (${e.hint})` : e.message });
    }
  };
  (spec.volumes ?? []).forEach((v: VolumeEntry, i: number) => check(['volumes', String(i)], () => assertVolumeEntry(v, 'volume')));
  (spec.configFiles ?? []).forEach((c: { targetPath: string }, i: number) => check(['configFiles', String(i), 'targetPath'], () => assertTargetPath(c.targetPath)));
  if (spec.composeTemplate) check(['composeTemplate'], () => assertComposeTemplate(spec.composeTemplate));
  const ingress = ingressProblem(spec.ingress);
  if (ingress) problems.push({ path: ingress.field.split('.'), message: ingress.message });
  if (spec.serverSelector && spec.deployments?.length) {
    problems.push({ path: ['serverSelector'], message: 'a service placed by serverSelector lists no deployments: the servers its selector matches get them' });
  }
  return problems;
}

export const service: KindDescriptor = {
  kind: 'Service',
  namespaced: true,
  description: 'A service template, where it runs (deployments), what it needs first (dependsOn) and its config files.',
  table: 'services',
  schemas,
  jsonColumns: ['env', 'ports', 'volumes', 'command', 'healthCheck', 'serverSelector', 'rollout', 'ingress'],
  problem: (fields) => updateOrderProblem(fields) ?? selectorProblem(fields) ?? rolloutRule(fields) ?? ingressRule(fields),
  references: [
    { path: 'image', kind: 'ContainerImage', column: 'containerImageId' },
    { path: 'deployments.*.server', kind: 'Server' },
    { path: 'dependsOn.*', kind: 'Service' },
    { path: 'configFiles.*.name', kind: 'ConfigFile' },
    { path: 'volumes.*.volume', kind: 'Volume' },
  ],
  manifest: {
    spec: object({
      image: name('Name of a ContainerImage'),
      imageTag: { ...imageTag, type: 'string', nullable: false },
      ...serviceFields,
      env: { ...serviceFields.env, description: 'Values may hold ${KEY} placeholders (vars and secrets)' },
      ports: { ...serviceFields.ports, description: 'e.g. "127.0.0.1:8080:80"' },
      deployments: arrayOf(deployment, { maxItems: 500 }),
      dependsOn: arrayOf(name('Name of a Service deployed before this one'), { uniqueItems: true }),
      configFiles: arrayOf(attachedConfigFile, { maxItems: 100 }),
    }, ['image', 'imageTag']),
    columns: ['imageTag', ...Object.keys(DEFAULTS)],
    problems: manifestProblems,
    relations: ['deployments', 'dependsOn', 'configFiles'],
    desired(spec, serviceName) {
      const { image, deployments, dependsOn, configFiles, ...plain } = spec;
      return {
        ...DEFAULTS, ...plain, image,
        // placed by selector: the deployments follow the servers' labels, not the manifest
        ...(!spec.serverSelector && { deployments: normaliseDeployments(serviceName, deployments ?? []) }),
        dependsOn: [...(dependsOn ?? [])].sort(),
        ...(configFiles && { configFiles: configFiles.map((c: { name: string; targetPath: string }) => ({ name: c.name, targetPath: c.targetPath })).sort(byJson) }),
      };
    },
    actual(row, { nameOf, relatedOf }) {
      return {
        deployments: row.serverSelector ? undefined : normaliseDeployments(row.name, relatedOf('deployments', 'serviceId', row.id)
          .map((d) => ({ server: nameOf('Server', d.serverId)!, containerName: d.containerName, composePath: d.composePath, adoptContainerId: d.adoptedContainerId }))),
        dependsOn: relatedOf('service_dependencies', 'serviceId', row.id).map((d) => nameOf('Service', d.dependsOnServiceId)).sort(),
        configFiles: relatedOf('config_attachments', 'serviceId', row.id)
          .map((a) => ({ name: nameOf('ConfigFile', a.configFileId), targetPath: a.targetPath })).sort(byJson),
      };
    },
  },
};
