import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { arrayOf, bool, enumOf, int, nonEmpty, nullable, nullableTimestamp, object, resourceSchemas, str, timestamp, uuid, type Schema } from './schema.js';

/** Which tags count as newer (controller/images/version-policy.ts); none: any newer version, prereleases left out. */
const policy: Schema = nullable(object({
  type: enumOf('semver', 'minor', 'patch', 'regex', 'digest'),
  range: str({ minLength: 1, maxLength: 200, description: 'semver only: an npm range such as ^1.4 or ~1.4.2' }),
  pattern: str({ minLength: 1, maxLength: 500, description: 'regex only: tags must match; the first capture group orders them' }),
  includePrereleases: { ...bool, description: 'let prereleases such as 1.5.0-rc.1 count as newer' },
}, ['type'], { description: 'Version policy: which tags count as a newer version (digest: follow the current tag\'s digest only)' }));

export const containerImage: KindDescriptor = {
  kind: 'ContainerImage',
  namespaced: true,
  description: 'An image repository (no tag). Services name it in spec.image by metadata.name.',
  table: 'container_images',
  // Rows have no name: an image is known by its imageName (the manifest's name is kept in source.name).
  nameColumn: null,
  schemas: resourceSchemas({
    writable: {
      imageName: nonEmpty(255),
      registryConnectionId: nullable(uuid),
      autoUpdate: { ...bool, default: false },
      policy,
    },
    readOnly: {
      id: uuid, environmentId: uuid, currentTag: nullable(str()), latestTag: nullable(str()), lastCheckedAt: nullableTimestamp,
      failedTag: nullable(str()), generation: int(1), status: { type: 'object' },
      source: { type: 'object' }, digests: arrayOf({ type: 'object' }), services: arrayOf({ type: 'object' }),
      createdAt: timestamp, updatedAt: timestamp,
    },
    required: ['imageName'],
  }),
  jsonColumns: ['policy'],
  references: [{ path: 'registry', kind: 'Registry', column: 'registryConnectionId' }],
  manifest: {
    spec: object({
      imageName: nonEmpty(500, { pattern: '^[^:@\\s]+(:[0-9]+)?(/[^:@\\s]+)*$', description: 'Image name without a tag, e.g. registry.local:5000/acme/api' }),
      registry: name('Name of the Registry the image is pulled from'),
      autoUpdate: bool,
      policy,
    }, ['imageName']),
    identity: 'imageName',
    columns: ['imageName', 'autoUpdate', 'policy'],
    defaults: { registry: null, autoUpdate: false, policy: null },
  },
};
