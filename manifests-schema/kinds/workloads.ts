/** Service, Database, ExternalEntity and Connection. */
import { arrayOf, bool, enumOf, int, nonEmpty, nullable, object, str, stringMap } from '../../api/http/schema.js';
import { KEY_PATTERN, name, type KindDefinition, type Schema } from './common.js';

const healthCheck: Schema = object({
  test: arrayOf(str({ maxLength: 1000 }), { minItems: 1 }),
  intervalSec: int(1, 3600), timeoutSec: int(1, 3600), retries: int(0, 100), startPeriodSec: int(0, 3600),
}, ['test']);

const deployment: Schema = object({
  server: name('Name of the Server this container runs on'),
  containerName: nonEmpty(128, { pattern: '^[a-zA-Z0-9][a-zA-Z0-9_.-]*$', description: 'Default: the service name' }),
  composePath: nullable(str({ maxLength: 1000, pattern: '^/' })),
}, ['server']);

const attachedConfigFile: Schema = object({
  name: name('Name of a ConfigFile'),
  targetPath: str({ minLength: 2, maxLength: 1000, pattern: '^/', description: 'Absolute path inside the container' }),
}, ['name', 'targetPath']);

export const service: KindDefinition = {
  kind: 'Service', namespaced: true,
  description: 'A service template, where it runs (deployments), what it needs first (dependsOn) and its config files.',
  spec: object({
    image: name('Name of a ContainerImage'),
    imageTag: nonEmpty(128, { pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' }),
    type: nullable(str({ maxLength: 50 })),
    env: { ...stringMap(), propertyNames: { pattern: KEY_PATTERN }, description: 'Values may hold ${KEY} placeholders (vars and secrets)' },
    ports: arrayOf(str({ pattern: '^([0-9.]+:)?[0-9]+(:[0-9]+)?(/(tcp|udp))?$' }), { maxItems: 100, description: 'e.g. "127.0.0.1:8080:80"' }),
    volumes: arrayOf(nonEmpty(1000), { maxItems: 100 }),
    command: nullable(arrayOf(str({ maxLength: 4000 }), { minItems: 1 })),
    healthCheck: nullable(healthCheck),
    composeTemplate: nullable(str({ maxLength: 65536 })),
    deployments: arrayOf(deployment, { maxItems: 500 }),
    dependsOn: arrayOf(name('Name of a Service deployed before this one'), { uniqueItems: true }),
    configFiles: arrayOf(attachedConfigFile, { maxItems: 100 }),
  }, ['image', 'imageTag']),
};

export const database: KindDefinition = {
  kind: 'Database', namespaced: true,
  description: 'A database running on a server, with its backup schedule and retention.',
  spec: object({
    engine: enumOf('postgres', 'mysql', 'mariadb', 'mongodb', 'redis'),
    version: nonEmpty(50),
    server: name('Name of the Server it runs on'),
    service: name('Name of the Service that runs it, if any'),
    port: int(1, 65535),
    backup: object({
      enabled: bool,
      schedule: nonEmpty(100, { description: 'Cron expression, e.g. "0 3 * * *"' }),
      retention: object({ count: int(1, 1000), days: int(1, 3650) }, [], { minProperties: 1 }),
    }, ['schedule']),
  }, ['engine', 'server']),
};

export const externalEntity: KindDefinition = {
  kind: 'ExternalEntity', namespaced: true,
  description: 'Something Stevedore does not run but services talk to (a SaaS API, a managed database).',
  spec: object({
    type: nonEmpty(50), url: str({ maxLength: 2048 }),
    description: nullable(str({ maxLength: 2000 })), attributes: stringMap(50),
  }, ['type']),
};

const endpoint: Schema = object({ kind: enumOf('Service', 'Database', 'ExternalEntity'), name: name('Its metadata.name') }, ['kind', 'name']);
export const connection: KindDefinition = {
  kind: 'Connection', namespaced: true,
  description: 'A declared link between two services, databases or external entities (for the map).',
  spec: object({ from: endpoint, to: endpoint, protocol: nonEmpty(50), description: nullable(str({ maxLength: 2000 })) }, ['from', 'to']),
};
