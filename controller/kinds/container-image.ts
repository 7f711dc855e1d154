import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { arrayOf, bool, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid } from './schema.js';

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
    },
    readOnly: {
      id: uuid, environmentId: uuid, currentTag: nullable(str()), generation: int(1), status: { type: 'object' },
      source: { type: 'object' }, digests: arrayOf({ type: 'object' }), services: arrayOf({ type: 'object' }),
      createdAt: timestamp, updatedAt: timestamp,
    },
    required: ['imageName'],
  }),
  references: [{ path: 'registry', kind: 'Registry', column: 'registryConnectionId' }],
  manifest: {
    spec: object({
      imageName: nonEmpty(500, { pattern: '^[^:@\\s]+(:[0-9]+)?(/[^:@\\s]+)*$', description: 'Image name without a tag, e.g. registry.local:5000/acme/api' }),
      registry: name('Name of the Registry the image is pulled from'),
      autoUpdate: bool,
    }, ['imageName']),
    identity: 'imageName',
    columns: ['imageName', 'autoUpdate'],
    defaults: { registry: null, autoUpdate: false },
  },
};
