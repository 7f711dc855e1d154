import { bool, enumOf, int, nullable, object, str, uuid, type Schema } from '../kinds/schema.js';

/** One settings module: its fields (validation and docs) and its defaults. */
export interface SettingsModule {
  fields: Record<string, Schema>;
  defaults: Record<string, unknown>;
}

const monitoringToggles = ['collectCpu', 'collectMemory', 'collectSwap', 'collectDisk', 'collectLoad', 'collectFds',
  'collectTcp', 'collectProcesses', 'collectTcpChecks', 'collectCertChecks'];

/** The five modules of the spec, plus the notifications setting (kept apart from the registry). */
export const SETTINGS_MODULES: Record<string, SettingsModule> = {
  general: {
    fields: { sshUser: str({ minLength: 1, maxLength: 32, pattern: '^[a-z_][a-z0-9_-]*[$]?$' }) },
    defaults: { sshUser: 'root' },
  },
  monitoring: {
    fields: Object.fromEntries(monitoringToggles.map((k) => [k, bool])),
    defaults: Object.fromEntries(monitoringToggles.map((k) => [k, true])),
  },
  operations: {
    fields: {
      defaultDockerMode: enumOf('ssh', 'socket'),
      defaultMetricsMode: enumOf('disabled', 'ssh', 'agent'),
      autoPruneImages: bool,
      pruneImagesMode: enumOf('dangling', 'all'),
      autoManageCompose: bool,
      driftPolicy: enumOf('off', 'warn', 'heal'),
      revisionHistoryLimit: int(1, 1000, { description: 'Revisions kept per service (the newest; revisions that are desired, current, failed or running are always kept)' }),
    },
    defaults: {
      defaultDockerMode: 'ssh', defaultMetricsMode: 'disabled', autoPruneImages: false,
      pruneImagesMode: 'dangling', autoManageCompose: false, driftPolicy: 'warn', revisionHistoryLimit: 50,
    },
  },
  data: {
    fields: { allowBackupDownload: bool, defaultMonitoringEnabled: bool, defaultCollectionIntervalSec: int(60, 3600) },
    defaults: { allowBackupDownload: false, defaultMonitoringEnabled: false, defaultCollectionIntervalSec: 300 },
  },
  configuration: {
    fields: { allowSecretReveal: bool, scanMinLength: int(1, 100), scanEntropyThreshold: int(0, 80) },
    defaults: { allowSecretReveal: true, scanMinLength: 6, scanEntropyThreshold: 25 },
  },
};

export const NOTIFICATIONS_MODULE: SettingsModule = {
  fields: { chatChannelId: nullable(uuid) },
  defaults: { chatChannelId: null },
};

export const MODULE_NAMES = Object.keys(SETTINGS_MODULES);

export const patchSchemaOf = (m: SettingsModule): Schema => object(m.fields, [], { minProperties: 1 });
export const readSchemaOf = (m: SettingsModule): Schema => object(m.fields, Object.keys(m.fields));

/** Every module with its defaults, as rows to insert when an environment is created. */
export function defaultSettingsRows(environmentId: string) {
  return [...Object.entries(SETTINGS_MODULES), ['notifications', NOTIFICATIONS_MODULE] as const].map(([module, m]) => ({
    environmentId, module, values: JSON.stringify(m.defaults),
  }));
}
