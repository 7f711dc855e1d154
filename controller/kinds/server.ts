import {
  HOSTNAME_PATTERN, SERVER_NAME_PATTERN, SOCKET_PATH_PATTERN, SSH_USER_PATTERN, TAG_PATTERN,
} from '../servers/validation.js';
import type { KindDescriptor } from './kind.js';
import { labelsProblem, labelsSchema } from '../placement/labels.js';
import {
  arrayOf, condition, enumOf, int, nonEmpty, nullable, nullableTimestamp, object, resourceSchemas, str, timestamp, uuid,
} from './schema.js';

const healthSchema = object({ status: enumOf('healthy', 'unhealthy', 'unknown'), checkedAt: nullableTimestamp, message: nullable(str()) });

export const server: KindDescriptor = {
  kind: 'Server',
  namespaced: true,
  description: 'A machine reached over SSH. sshUser and dockerMode default to the environment settings.',
  table: 'servers',
  schemas: resourceSchemas({
    writable: {
      name: nonEmpty(100, { pattern: SERVER_NAME_PATTERN }),
      hostname: nonEmpty(253, { pattern: HOSTNAME_PATTERN, description: 'hostname or IP address' }),
      sshPort: int(1, 65535, { default: 22 }),
      sshUser: str({ minLength: 1, maxLength: 32, pattern: SSH_USER_PATTERN, description: "default: the environment's general.sshUser" }),
      dockerMode: enumOf('ssh', 'socket'),
      dockerSocketPath: nullable(str({ maxLength: 255, pattern: SOCKET_PATH_PATTERN, description: 'default /var/run/docker.sock' })),
      metricsMode: enumOf('disabled', 'ssh', 'agent'),
      tags: arrayOf(str({ minLength: 1, maxLength: 64, pattern: TAG_PATTERN }), { maxItems: 50, uniqueItems: true }),
      labels: { ...labelsSchema, default: {} },
    },
    readOnly: {
      id: uuid, environmentId: uuid, health: healthSchema, hostKeyFingerprint: nullable(str()),
      generation: int(1), observedGeneration: nullable(int(0)), conditions: arrayOf(condition), status: { type: 'object' }, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
    },
    required: ['name', 'hostname'],
  }),
  jsonColumns: ['tags', 'labels'],
  problem(fields) {
    const message = labelsProblem(fields.labels);
    return message ? { field: 'labels', message } : null;
  },
  manifest: {
    spec: object({
      hostname: nonEmpty(255, { description: 'Host name or IP address' }),
      sshPort: int(1, 65535, { description: 'Default 22' }),
      sshUser: str({ minLength: 1, maxLength: 32, pattern: '^[a-z_][a-z0-9_-]*[$]?$' }),
      dockerMode: enumOf('ssh', 'socket'),
      metricsMode: enumOf('disabled', 'ssh', 'agent'),
      tags: arrayOf(nonEmpty(100), { maxItems: 50, uniqueItems: true }),
      labels: { ...labelsSchema, description: 'Labels services select servers by (serverSelector.matchLabels); Kubernetes rules for keys and values' },
    }, ['hostname']),
    columns: ['hostname', 'sshPort', 'sshUser', 'dockerMode', 'metricsMode', 'tags', 'labels'],
    environmentDefaults: {
      sshUser: ['general', 'sshUser'], dockerMode: ['operations', 'defaultDockerMode'], metricsMode: ['operations', 'defaultMetricsMode'],
    },
  },
};
