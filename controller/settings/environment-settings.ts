import { arrayOf, bool, enumOf, int, nullable, object, str, uuid, type Schema } from '../kinds/schema.js';
import { CONTAINER_POLICIES } from '../deploy/container-policy.js';

/** One settings module: its fields (validation and docs) and its defaults. */
export interface SettingsModule {
  fields: Record<string, Schema>;
  defaults: Record<string, unknown>;
}

/** A field's schema with the description the API document, the manifests schema and the dashboard's settings form show. */
const about = (schema: Schema, description: string): Schema => ({ ...schema, description });

const monitoringToggles: Record<string, string> = {
  collectCpu: 'Sample CPU use of servers and containers (docs/monitoring.md)',
  collectMemory: 'Sample memory use of servers and containers',
  collectSwap: 'Sample swap use',
  collectDisk: "Sample use of the disk holding Docker's data root",
  collectLoad: 'Sample the load averages (1, 5 and 15 minutes)',
  collectFds: 'Sample the number of open file handles',
  collectTcp: 'Sample the number of established TCP connections',
  collectProcesses: 'Sample the number of processes',
  collectTcpChecks: 'Health-check every TCP port a container publishes, connecting from its server',
  collectCertChecks: 'Check the TLS certificate each published port presents and alert before it expires',
};

/** The five modules of the spec, plus the notifications setting (kept apart from the registry). */
export const SETTINGS_MODULES: Record<string, SettingsModule> = {
  general: {
    fields: { sshUser: str({ minLength: 1, maxLength: 32, pattern: '^[a-z_][a-z0-9_-]*[$]?$', description: 'The SSH user of a server that names none' }) },
    defaults: { sshUser: 'root' },
  },
  monitoring: {
    fields: Object.fromEntries(Object.entries(monitoringToggles).map(([k, d]) => [k, about(bool, d)])),
    defaults: Object.fromEntries(Object.keys(monitoringToggles).map((k) => [k, true])),
  },
  operations: {
    fields: {
      defaultDockerMode: about(enumOf('ssh', 'socket'), "How a server that names none reaches Docker: through the SSH connection, or a local socket"),
      defaultMetricsMode: about(enumOf('disabled', 'ssh', 'agent'), 'How metrics of a server that names none are collected: not at all, over SSH, or by the agent'),
      autoPruneImages: about(bool, 'Prune unused images automatically (stored for now: nothing prunes on its own yet; POST /api/servers/{id}/prune-images prunes by hand)'),
      pruneImagesMode: about(enumOf('dangling', 'all'), 'What a prune removes: untagged images only, or every image no container uses'),
      autoManageCompose: about(bool, 'Deploy services through a compose file Stevedore writes, not a container it creates directly (docs/deploys.md)'),
      driftPolicy: about(enumOf('off', 'warn', 'heal'), 'A container that differs from its desired state: ignored, reported as Drifted, or redeployed'),
      revisionHistoryLimit: int(1, 1000, { description: 'Revisions kept per service (the newest; revisions that are desired, current, failed or running are always kept)' }),
      containerPolicy: about(enumOf(...CONTAINER_POLICIES), 'What containers may ask of their server: baseline refuses host paths such as / and the Docker socket, '
        + 'privileged mode, host namespaces, added capabilities, devices and unconfined profiles; privileged allows them (docs/deploys.md#container-policy)'),
      allowedHostPaths: about(arrayOf(str({ minLength: 1, maxLength: 1000, pattern: '^/[A-Za-z0-9._/@+-]*$' }), { maxItems: 100, uniqueItems: true }),
        'Host path prefixes that may be bind-mounted even where the baseline policy refuses them (e.g. /var/run/docker.sock for a proxy)'),
      allowExec: about(bool, "Let operators and admins run commands in the environment's containers (POST …/exec and the interactive …/exec/ws; docs/exec.md); off: refused for everyone"),
      ingressHttpPort: int(1, 65535, { description: "The host port the proxy on the environment's servers serves plain HTTP on (docs/ingress.md)" }),
      ingressHttpsPort: int(1, 65535, { description: "The host port the proxy on the environment's servers serves HTTPS on" }),
    },
    defaults: {
      defaultDockerMode: 'ssh', defaultMetricsMode: 'disabled', autoPruneImages: false,
      pruneImagesMode: 'dangling', autoManageCompose: false, driftPolicy: 'warn', revisionHistoryLimit: 50,
      containerPolicy: 'baseline', allowedHostPaths: [],
      allowExec: true,
      ingressHttpPort: 80, ingressHttpsPort: 443,
    },
  },
  data: {
    fields: {
      allowBackupDownload: about(bool, 'Let operators download backups of the databases'),
      defaultMonitoringEnabled: about(bool, 'Monitor a new database (reachability and size) unless it says otherwise'),
      defaultCollectionIntervalSec: int(60, 3600, { description: "Seconds between two looks at a monitored database that sets no interval of its own" }),
    },
    defaults: { allowBackupDownload: false, defaultMonitoringEnabled: false, defaultCollectionIntervalSec: 300 },
  },
  configuration: {
    fields: {
      allowSecretReveal: about(bool, 'Let admins read a secret back (POST /api/secrets/{id}/reveal); off: secrets are write-only for everyone'),
      scanMinLength: int(1, 100, { description: 'The secret scanner of config files looks at values of at least this many characters' }),
      scanEntropyThreshold: int(0, 80, { description: 'The scanner reports a value whose Shannon entropy × 10 is at least this' }),
    },
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
