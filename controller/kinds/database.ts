import type { KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { bool, enumOf, int, nonEmpty, object } from './schema.js';

/** Declared in manifests and validated; nothing stores or applies it yet. */
export const database: KindDescriptor = {
  kind: 'Database',
  namespaced: true,
  description: 'A database running on a server, with its backup schedule and retention.',
  references: [{ path: 'server', kind: 'Server' }, { path: 'service', kind: 'Service' }],
  manifest: {
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
  },
};
