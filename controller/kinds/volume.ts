import { scheduleProblem } from '../databases/cron-schedule.js';
import type { KindDescriptor } from './kind.js';
import { name, RESERVED_LABEL_PREFIX } from './manifest-fields.js';
import { enumOf, int, nonEmpty, nullable, object, resourceSchemas, str, stringMap, timestamp, uuid, type Schema } from './schema.js';

export const CONSISTENCIES = ['stop', 'command', 'none'] as const;
export type Consistency = typeof CONSISTENCIES[number];

export interface VolumeBackupSpec {
  schedule: string;
  keepLast?: number | null;
  consistency?: Consistency;
  command?: string[] | null;
  drillSchedule?: string | null;
  drillCheckCommand?: string | null;
}

/** Docker's volume name rule, kept short enough for the environment id in front of it. */
const VOLUME_NAME = nonEmpty(63, { pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', description: 'Its name in the environment (the Docker volume is stevedore-<environment id>-<name>)' });

export const volumeBackupSchema: Schema = nullable(object({
  schedule: nonEmpty(100, { description: 'Cron expression of scheduled backups (5 fields, or 6 with seconds), UTC' }),
  keepLast: nullable(int(1, 10000, { description: 'Retention: keep the newest N backups of each status (pinned ones are never rotated)' })),
  consistency: { ...enumOf(...CONSISTENCIES), default: 'stop', description: "How the copy is made consistent: stop (default) stops the service's containers on the volume's server for the copy and always starts them again; command runs `command` in the container first (a flush); none copies the live volume" },
  command: nullable({ type: 'array', items: str({ minLength: 1, maxLength: 4096 }), minItems: 1, maxItems: 64, description: 'With consistency command: the argv run in the container that mounts the volume before the copy (a database flush)' }),
  drillSchedule: nullable(nonEmpty(100, { description: 'Cron expression of scheduled restore drills of the newest succeeded backup into a scratch volume (5 fields, or 6 with seconds), UTC; null: none' })),
  drillCheckCommand: nullable(str({ minLength: 1, maxLength: 2000, description: 'sh -c command a scheduled drill runs in the restored copy (mounted read-only at the working directory /v, no network; refused while operations.allowExec is off); default: the copy holds files' })),
}, ['schedule'], { description: 'Scheduled backups of the volume; null: none' }));

const fields = {
  driver: { ...nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9_./:-]*$' }), default: 'local', description: 'The Docker volume driver (default local)' },
  labels: { ...stringMap(50), default: {}, description: `Labels of the Docker volume (keys starting ${RESERVED_LABEL_PREFIX} are Stevedore's)` },
  backup: volumeBackupSchema,
};

const built = resourceSchemas({
  writable: { name: VOLUME_NAME, serverId: uuid, ...fields },
  readOnly: {
    id: uuid, environmentId: uuid, dockerName: str({ description: 'The Docker volume it is now (a restore swaps it)' }), generation: int(1),
    status: { type: 'object' }, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp,
  },
  required: ['name', 'serverId'],
});
// its data is on that server under that name: moving or renaming it is a new volume and a restore
const schemas = { ...built, updateReadOnly: [...built.readOnly, 'name', 'serverId'] };

/** Why a volume's backup block cannot be used, or null. */
export function backupProblem(b: VolumeBackupSpec | null | undefined): { field: string; message: string } | null {
  if (!b) return null;
  const p = scheduleProblem(b.schedule, null);
  if (p) return { field: 'backup.schedule', message: `'${b.schedule}': ${p.message}` };
  const d = b.drillSchedule == null ? null : scheduleProblem(b.drillSchedule, null);
  if (d) return { field: 'backup.drillSchedule', message: `'${b.drillSchedule}': ${d.message}` };
  if ((b.consistency ?? 'stop') === 'command' && !b.command?.length) return { field: 'backup.command', message: 'consistency command needs backup.command (the argv run in the container before the copy)' };
  if ((b.consistency ?? 'stop') !== 'command' && b.command?.length) return { field: 'backup.command', message: 'backup.command runs only with consistency command' };
  return null;
}

/** Labels a user may set: Stevedore's own ownership labels are not theirs to forge. */
export function labelsProblem(labels: Record<string, string> | null | undefined): { field: string; message: string } | null {
  const reserved = Object.keys(labels ?? {}).find((k) => k.startsWith(RESERVED_LABEL_PREFIX));
  return reserved ? { field: 'labels', message: `the label ${reserved} is reserved: keys starting ${RESERVED_LABEL_PREFIX} are Stevedore's` } : null;
}

export const volume: KindDescriptor = {
  kind: 'Volume',
  namespaced: true,
  description: 'A named Docker volume on one server: created before the containers that mount it, backed up on a schedule, restored and drilled (docs/volumes.md).',
  table: 'volumes',
  schemas,
  jsonColumns: ['labels', 'backup'],
  references: [{ path: 'server', kind: 'Server', column: 'serverId' }],
  problem: (f) => labelsProblem(f.labels) ?? backupProblem(f.backup),
  api: { path: 'volumes', tagDescription: 'Named volumes, their backups, restores and drills' },
  manifest: {
    spec: object({ server: name('Name of the Server it lives on'), ...fields } as Record<string, Schema>, ['server']),
    columns: ['driver', 'labels', 'backup'],
    defaults: { driver: 'local', labels: {}, backup: null },
    problems(spec) {
      const p = labelsProblem(spec.labels) ?? backupProblem(spec.backup);
      return p ? [{ path: p.field.split('.'), message: p.message }] : [];
    },
    // changed schedules are computed again by the scheduler
    write(field, value) {
      if (field === 'backup') return { backup: value == null ? null : JSON.stringify(value), nextBackupAt: null, nextDrillAt: null };
      return undefined;
    },
  },
};
