/** Service, Database, ExternalEntity and Connection. */
import { arrayOf, bool, enumOf, int, nonEmpty, nullable, object, str, stringMap } from '../../api/http/schema.js';
import { deploymentSchemas, serviceSchemas } from '../../api/routes/catalog-schemas.js';
import { name, type KindDefinition, type Schema } from './common.js';

// The API's own field schemas (api/routes/catalog-schemas.ts), so both accept the same values.
const apiService = serviceSchemas.create.properties as Record<string, Schema>;
const apiDeployment = deploymentSchemas.create.properties as Record<string, Schema>;
const { name: _n, containerImageId: _c, imageTag, ...serviceFields } = apiService;

const deployment: Schema = object({
  server: name('Name of the Server this container runs on'),
  containerName: { ...apiDeployment.containerName, description: 'Default: the service name' },
  composePath: apiDeployment.composePath,
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
    imageTag: { ...imageTag, type: 'string', nullable: false },
    ...serviceFields,
    env: { ...serviceFields.env, description: 'Values may hold ${KEY} placeholders (vars and secrets)' },
    ports: { ...serviceFields.ports, description: 'e.g. "127.0.0.1:8080:80"' },
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
