/** Environment, Server, Registry, ContainerImage and ServerCluster. */
import { arrayOf, bool, enumOf, int, nonEmpty, nullable, object, str } from '../../api/http/schema.js';
import { SETTINGS_MODULES, patchSchemaOf } from '../../controller/settings/environment-settings.js';
import { registrySchemas } from '../../api/routes/registries.js';
import { name, secretRef, type KindDefinition, type Schema } from './common.js';

const settings: Schema = object(
  Object.fromEntries(Object.entries(SETTINGS_MODULES).map(([m, def]) => [m, { ...patchSchemaOf(def), description: `The ${m} settings module: only the fields given are owned` }])),
  [], { description: 'Settings modules, as PATCH /api/environments/{envId}/settings/{module} takes them' },
);

export const environment: KindDefinition = {
  kind: 'Environment', namespaced: false,
  description: 'An environment and its settings. Other objects name it in metadata.environment.',
  spec: object({
    description: nullable(str({ maxLength: 2000 })),
    settings,
    sshPrivateKey: secretRef('SSH private key (OpenSSH or PEM) used to reach the ssh-mode servers, as PUT /api/environments/{envId}/ssh-key sets it'),
  }),
};

export const server: KindDefinition = {
  kind: 'Server', namespaced: true,
  description: 'A machine reached over SSH. sshUser and dockerMode default to the environment settings.',
  spec: object({
    hostname: nonEmpty(255, { description: 'Host name or IP address' }),
    sshPort: int(1, 65535, { description: 'Default 22' }),
    sshUser: str({ minLength: 1, maxLength: 32, pattern: '^[a-z_][a-z0-9_-]*[$]?$' }),
    dockerMode: enumOf('ssh', 'socket'),
    metricsMode: enumOf('disabled', 'ssh', 'agent'),
    tags: arrayOf(nonEmpty(100), { maxItems: 50, uniqueItems: true }),
  }, ['hostname']),
};

// The API's registry fields, with the two credentials read from valueFrom instead of plain text.
const { token: _t, password: _p, ...registryFields } = (registrySchemas.create.properties ?? {}) as Record<string, Schema>;
const { name: _n, ...registrySpecFields } = registryFields;
export const registry: KindDefinition = {
  kind: 'Registry', namespaced: true,
  description: 'A registry connection. Credentials come from valueFrom, never from the file.',
  spec: object({
    ...registrySpecFields,
    username: nullable(str({ maxLength: 500 })),
    token: secretRef('Registry token'),
    password: secretRef('Registry password'),
  }, ['type', 'registryUrl']),
};

export const containerImage: KindDefinition = {
  kind: 'ContainerImage', namespaced: true,
  description: 'An image repository (no tag). Services name it in spec.image by metadata.name.',
  spec: object({
    imageName: nonEmpty(500, { pattern: '^[^:@\\s]+(:[0-9]+)?(/[^:@\\s]+)*$', description: 'Image name without a tag, e.g. registry.local:5000/acme/api' }),
    registry: name('Name of the Registry the image is pulled from'),
    autoUpdate: bool,
  }, ['imageName']),
};

export const serverCluster: KindDefinition = {
  kind: 'ServerCluster', namespaced: true,
  description: 'A named group of servers.',
  spec: object({
    description: nullable(str({ maxLength: 2000 })),
    servers: arrayOf(name('Name of a Server'), { minItems: 1, uniqueItems: true }),
  }, ['servers']),
};
