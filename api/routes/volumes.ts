// A volume's routes beyond its generic CRUD (controller/kinds/volume.ts): what it is now on its
// server, its removal with its data (confirmed by name), its backups (now, list, pin, delete),
// restores into a new volume and drills; and a server's volumes, managed or not (docs/volumes.md).
import type { Services } from '../../controller/services.js';
import { conflict, notFound, validationError } from '../../controller/errors/app-error.js';
import { mountsOf } from '../../controller/model/volume-mount.js';
import type { ServerRow } from '../../controller/store/repositories/servers.js';
import {
  dockerNameOf, toVolumeBackup, toVolumeRestore, type VolumeBackupRow, type VolumeRow,
} from '../../controller/store/repositories/volumes.js';
import { serverInventory, volumeUsage } from '../../controller/volumes/inventory.js';
import { usersOf } from '../../controller/volumes/volume-ops.js';
import { startVolumeRestore } from '../../reconcilers/volume/restore.js';
import { result, route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';
import { backupItemRoutes, backupNowRoutes } from './backups.js';
import { assertExecAllowed } from './exec.js';

const TAG = 'volumes';
const STATUS = enumOf('running', 'succeeded', 'failed');
const backupSchema = object({
  id: uuid, volumeId: uuid, environmentId: uuid, status: STATUS, trigger: enumOf('manual', 'schedule', 'safety'),
  consistency: enumOf('stop', 'command', 'none'), storage: enumOf('local', 's3'), bucket: nullable(str()), objectKey: str(),
  sizeBytes: nullable(int(0, undefined, { description: 'Bytes stored (the gzipped tar)' })),
  tarBytes: nullable(int(0, undefined, { description: 'Bytes of the tar stream the helper container produced' })),
  sha256: nullable(str({ description: 'SHA-256 of the stored object, read back from the store' })), pinned: bool, error: nullable(str()),
  startedAt: timestamp, finishedAt: nullableTimestamp,
});
const restoreSchema = object({
  id: uuid, volumeId: uuid, environmentId: uuid, backupId: nullable(uuid), target: enumOf('volume', 'drill'), status: STATUS,
  newDockerName: nullable(str({ description: 'The Docker volume the backup was unpacked into' })),
  previousDockerName: nullable(str({ description: 'A restore: the Docker volume it replaced (removed once the swap succeeded)' })),
  checkOutput: nullable(str()), durationMs: nullable(int(0)), error: nullable(str()), startedAt: timestamp, finishedAt: nullableTimestamp,
});
const container = object({ name: str(), running: bool });
const usageSchema = object({
  dockerName: str(), exists: bool, sizeBytes: nullable(int(0, undefined, { description: 'du -sk of the volume, in a helper container' })), containers: arrayOf(container),
});
const serverVolumeSchema = object({
  dockerName: str(), driver: str(), labels: { type: 'object', additionalProperties: str() }, managed: bool,
  volumeId: nullable(uuid), volumeName: nullable(str()), containers: arrayOf(container),
});
const confirm = str({ maxLength: 100, description: "The volume's name: its data is replaced (restore) or removed (destroy)" });

export default function volumeRoutes(s: Services) {
  const ops = s.volumeOps;
  const { backups, restores } = ops.ctx;
  const loadVolume = rowOf(s.volumes, 'Volume');
  const loadBackup = rowOf(backups, 'Volume backup');
  const volumeOf = async (b: { volumeId: string }): Promise<VolumeRow> => (await s.volumes.findById(b.volumeId)) ?? (() => { throw notFound('Volume'); })();
  const confirmed = (v: VolumeRow, given: string | undefined, what: string) => {
    if (given !== v.name) throw validationError(`${what} of volume '${v.name}': send confirm with its name`, 'confirm');
  };

  return [
    route<unknown, unknown, VolumeRow>({
      method: 'GET', path: '/api/volumes/{id}/usage', operationId: 'getVolumeUsage', tag: TAG, access: 'viewer', load: loadVolume,
      response: usageSchema, summary: 'What the volume is on its server now: whether it exists, its size and the containers that mount it',
      handler: (_ctx, { resource }) => volumeUsage(ops.ctx, resource),
    }),

    route<{ confirm?: string }, unknown, VolumeRow>({
      method: 'POST', path: '/api/volumes/{id}/destroy', operationId: 'destroyVolume', tag: TAG, access: 'operator', load: loadVolume,
      body: object({ confirm }, ['confirm']), status: 204, errors: [409],
      summary: 'Remove the Docker volume with its data and the volume (confirm with its name); refused while a service or a container mounts it',
      async handler(ctx, { resource, body }) {
        confirmed(resource, body.confirm, 'Removing the data');
        await assertUnmounted(s, resource);
        const users = await usersOf(ops.ctx, resource);
        if (users.length) throw conflict(`The volume ${resource.name} is mounted by ${users.map((u) => u.name).join(', ')}`, 'Nothing was removed');
        const r = await s.hosts.exec(resource.serverId, ['docker', 'volume', 'rm', '--', dockerNameOf(resource)], { check: false });
        if (r.code !== 0 && !/no such volume/i.test(r.stderr)) throw conflict(`docker volume rm failed: ${r.stderr.trim().slice(-300)}`, 'Nothing was removed');
        for (const b of await backups.finishedOf(resource.id)) await ops.deleteBackup(b);
        await s.volumes.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, resourceType: 'volumes', resourceId: resource.id, details: { name: resource.name, data: 'removed' } };
        return undefined;
      },
    }),

    ...backupNowRoutes<VolumeRow, VolumeBackupRow>({
      path: '/api/volumes/{id}/backups', operationIds: ['listVolumeBackups', 'createVolumeBackup'], tag: TAG, load: loadVolume, response: backupSchema,
      listSummary: 'Backups of a volume, newest first',
      createSummary: 'Back the volume up now (202, status running): a consistent tar of it (backup.consistency, default stop) through gzip to storage',
      page: (id, q) => backups.pageOf(id, q), present: toVolumeBackup, resourceType: 'volume-backups',
      start: async (v, storage) => (await ops.backup(v, { trigger: 'manual', storage })).row,
    }),

    route({
      method: 'GET', path: '/api/volume-backups/{id}', operationId: 'getVolumeBackup', tag: TAG, access: 'viewer', load: loadBackup,
      response: backupSchema, summary: 'One volume backup: status, sizes, SHA-256, and the reason of a failure',
      handler: async (_ctx, { resource }) => toVolumeBackup(resource),
    }),

    ...backupItemRoutes<VolumeBackupRow>({
      path: '/api/volume-backups/{id}', name: 'VolumeBackup', noun: 'volume backup', tag: TAG, load: loadBackup, response: backupSchema,
      present: toVolumeBackup, remove: (b) => ops.deleteBackup(b), pin: async (b, pinned) => (await backups.update(b.id, { pinned }))!,
    }),

    route<{ confirm?: string }, unknown, VolumeBackupRow>({
      method: 'POST', path: '/api/volume-backups/{id}/restore', operationId: 'restoreVolumeBackup', tag: TAG, access: 'operator', load: loadBackup,
      body: object({ confirm }, ['confirm']), status: 202, response: restoreSchema, errors: [409],
      summary: 'Restore the backup into a new volume, then swap: the containers that mount it are recreated on the new one, the old is kept until that succeeded (202)',
      async handler(ctx, { resource, body }) {
        const v = await volumeOf(resource);
        confirmed(v, body.confirm, 'Restoring replaces the data');
        const { row } = await startVolumeRestore(s, v, resource, ctx.state.actor?.name ?? null);
        ctx.state.audit = { environmentId: v.environmentId, resourceType: 'volume-restores', resourceId: row.id, details: { volumeId: v.id, backupId: resource.id } };
        return result(202, toVolumeRestore(row));
      },
    }),

    route<{ checkCommand?: string | null }, unknown, VolumeBackupRow>({
      method: 'POST', path: '/api/volume-backups/{id}/drill', operationId: 'drillVolumeBackup', tag: TAG, access: 'operator', load: loadBackup,
      body: object({
        checkCommand: nullable(str({ minLength: 1, maxLength: 2000, description: 'sh -c command run in the restored copy (mounted read-only at the working directory /v, no network); default: the copy holds files' })),
      }), status: 202, response: restoreSchema, errors: [403, 409],
      summary: 'Restore the backup into a scratch volume, run the check there, record the result and remove the scratch volume (202)',
      async handler(ctx, { resource, body }) {
        const v = await volumeOf(resource);
        // a check command is a command run over the volume's data, as a one-off run is
        if (body.checkCommand) await assertExecAllowed(s, v.environmentId);
        const { row } = await ops.drill(v, resource, body.checkCommand ?? null);
        ctx.state.audit = { environmentId: v.environmentId, resourceType: 'volume-restores', resourceId: row.id, details: { volumeId: v.id, backupId: resource.id, target: 'drill' } };
        return result(202, toVolumeRestore(row));
      },
    }),

    route<unknown, { limit: number; offset: number }, VolumeRow>({
      method: 'GET', path: '/api/volumes/{id}/drills', operationId: 'listVolumeDrills', tag: TAG, access: 'viewer', load: loadVolume,
      query: paginationQuery, response: listOf(restoreSchema),
      summary: 'Drills of a volume (on request and scheduled by backup.drillSchedule), newest first',
      async handler(_ctx, { resource, query }) {
        const page = await restores.drillsOf(resource.id, query);
        return { ...page, items: page.items.map(toVolumeRestore) };
      },
    }),

    route({
      method: 'GET', path: '/api/volume-restores/{id}', operationId: 'getVolumeRestore', tag: TAG, access: 'viewer',
      load: rowOf(restores, 'Volume restore'), response: restoreSchema, summary: 'One restore or drill of a volume: status, duration, check output, reason',
      handler: async (_ctx, { resource }) => toVolumeRestore(resource),
    }),

    route<unknown, unknown, ServerRow>({
      method: 'GET', path: '/api/servers/{id}/volumes', operationId: 'listServerVolumes', tag: TAG, access: 'viewer', load: rowOf(s.servers, 'Server'),
      response: object({ items: arrayOf(serverVolumeSchema) }),
      summary: 'The Docker volumes on a server, each managed (a volume of the store, by its ownership label) or not (a candidate for adoption), with the containers that mount it',
      handler: async (_ctx, { resource }) => ({ items: await serverInventory(s, resource.id, await s.volumes.listByServer(resource.id)) }),
    }),
  ];
}

/** A volume a service still mounts is not removed: 409 naming the services. */
export async function assertUnmounted(s: Services, v: VolumeRow): Promise<void> {
  const users = (await s.services.listByEnvironment(v.environmentId)).filter((svc) => mountsOf(svc.volumes).some((m) => m.volume === v.name));
  if (users.length) throw conflict(`The volume ${v.name} is mounted by the service ${users.map((u) => u.name).join(', ')}`, 'Remove it from their volumes first');
}
