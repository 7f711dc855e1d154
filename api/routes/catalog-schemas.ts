import {
  NAME_PATTERN, TAG_PATTERN, TYPE_NAME_PATTERN,
} from '../../controller/catalog/validators.js';
import {
  arrayOf, bool, int, nonEmpty, nullable, nullableTimestamp, object, resourceSchemas, str, timestamp, uuid,
} from '../http/schema.js';

/** Request and response schemas of the service catalog (services, deployments, images, types). */
const argv = (maxItems = 64) => arrayOf(str({ maxLength: 4096 }), { minItems: 1, maxItems });

export const healthCheckSchema = object({
  test: argv(),
  intervalSec: int(1, 3600),
  timeoutSec: int(1, 3600),
  retries: int(0, 100),
  startPeriodSec: int(0, 3600),
}, ['test']);

export const serviceSchemas = resourceSchemas({
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
    volumes: arrayOf(str({ maxLength: 1024 }), { maxItems: 100, default: [] }),
    command: nullable(argv(256)),
    healthCheck: nullable(healthCheckSchema),
    composeTemplate: nullable(str({ maxLength: 262144 })),
  },
  readOnly: {
    id: uuid, environmentId: uuid, generation: int(1), status: { type: 'object' }, source: { type: 'object' },
    observedGeneration: nullable(int(1)), conditions: arrayOf({ type: 'object' }),
    deployments: arrayOf({ type: 'object' }), createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['name', 'containerImageId'],
});

export const deploymentSchemas = resourceSchemas({
  writable: {
    serverId: uuid,
    containerName: str({ pattern: NAME_PATTERN }),
    composePath: nullable(str({ maxLength: 1024 })),
  },
  readOnly: {
    id: uuid, serviceId: uuid, environmentId: uuid, status: str(), imageTag: nullable(str()),
    previousImageTag: nullable(str()), imageDigest: nullable(str()), exposedPorts: arrayOf({}),
    lastDeployedAt: nullableTimestamp, generation: int(1), conditions: arrayOf({ type: 'object' }),
    observedGeneration: nullable(int(1)), failedGeneration: nullable(int(1)),
    source: { type: 'object' }, containerId: nullable(str()), createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['serverId', 'containerName'],
});

export const containerImageSchemas = resourceSchemas({
  writable: {
    imageName: nonEmpty(255),
    registryConnectionId: nullable(uuid),
    autoUpdate: { ...bool, default: false },
  },
  readOnly: {
    id: uuid, environmentId: uuid, currentTag: nullable(str()), generation: int(1), status: { type: 'object' },
    source: { type: 'object' }, digests: arrayOf({ type: 'object' }), services: arrayOf({ type: 'object' }),
    createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['imageName'],
});

export const digestSchema = object({
  id: uuid, containerImageId: uuid, tag: str(), digest: str(), firstSeenAt: timestamp, lastSeenAt: timestamp,
});

export const typeCommandSchema = object({
  name: str({ pattern: '^[a-z0-9][a-z0-9_.-]{0,62}$' }),
  description: str({ maxLength: 500 }),
  command: argv(),
  target: { type: 'string', enum: ['container', 'host'], default: 'container' },
}, ['name', 'command']);

export const commandTypeSchemas = (withPort: boolean) => resourceSchemas({
  writable: {
    name: str({ pattern: TYPE_NAME_PATTERN }),
    description: nullable(str({ maxLength: 2000 })),
    defaultImage: nullable(nonEmpty(255)),
    ...(withPort && { defaultPort: nullable(int(1, 65535)) }),
    commands: arrayOf(typeCommandSchema, { maxItems: 100, default: [] }),
  },
  readOnly: { id: uuid, builtin: bool, createdAt: timestamp, updatedAt: timestamp },
  required: ['name'],
});
