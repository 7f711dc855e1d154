import { NOTIFICATIONS_MODULE, SETTINGS_MODULES, patchSchemaOf } from '../settings/environment-settings.js';
import { parsePrivateKey } from '../servers/ssh-key.js';
import type { KindDescriptor } from './kind.js';
import { secretRef } from './manifest-fields.js';
import { int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid, type Schema } from './schema.js';

const settings: Schema = object(
  Object.fromEntries(Object.entries(SETTINGS_MODULES).map(([m, def]) => [m, { ...patchSchemaOf(def), description: `The ${m} settings module: only the fields given are owned` }])),
  [], { description: 'Settings modules, as PATCH /api/environments/{envId}/settings/{module} takes them' },
);

/** The key must parse, so a wrong file is an error of the folder and not a deploy failure later. */
function checkSshKey(value: string): string | null {
  try {
    parsePrivateKey(value);
    return null;
  } catch (e) {
    return `not a usable SSH private key: ${(e as Error).message}`;
  }
}

/** As PUT /api/environments/{envId}/ssh-key stores a key: with its public half and fingerprint. */
function sshKeyColumns(privateKey: string) {
  const key = parsePrivateKey(privateKey);
  return { sshPublicKey: key.publicKey, sshKeyFingerprint: key.fingerprint, sshKeyUpdatedAt: new Date() };
}

export const environment: KindDescriptor = {
  kind: 'Environment',
  namespaced: false,
  description: 'An environment and its settings. Other objects name it in metadata.environment.',
  table: 'environments',
  schemas: resourceSchemas({
    writable: {
      name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
      description: nullable(str({ maxLength: 2000 })),
    },
    readOnly: {
      id: uuid, generation: int(1), status: { type: 'object' }, source: { type: 'object' },
      createdAt: timestamp, updatedAt: timestamp,
    },
    required: ['name'],
  }),
  secrets: [{ field: 'sshPrivateKey', column: 'sshPrivateKeySealed', check: checkSshKey, derived: sshKeyColumns }],
  manifest: {
    spec: object({
      description: nullable(str({ maxLength: 2000 })),
      settings,
      sshPrivateKey: secretRef('SSH private key (OpenSSH or PEM) used to reach the ssh-mode servers, as PUT /api/environments/{envId}/ssh-key sets it'),
    }),
    columns: ['description'],
    relations: ['settings.'],
    // Each settings field a manifest sets is owned on its own: `settings.<module>.<field>`.
    desired(spec) {
      const fields: Record<string, unknown> = {};
      if ('description' in spec) fields.description = spec.description;
      for (const [module, values] of Object.entries(spec.settings ?? {})) {
        for (const [k, v] of Object.entries(values as object)) fields[`settings.${module}.${k}`] = v;
      }
      return fields;
    },
    actual(row, { relatedOf }) {
      const fields: Record<string, unknown> = {};
      for (const [module, def] of [...Object.entries(SETTINGS_MODULES), ['notifications', NOTIFICATIONS_MODULE] as const]) {
        const stored = relatedOf('environment_settings', 'environmentId', row.id).find((s) => s.module === module);
        for (const [k, v] of Object.entries({ ...def.defaults, ...(stored?.values ?? {}) })) fields[`settings.${module}.${k}`] = v;
      }
      return fields;
    },
  },
};
