import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { targetsOf } from '../../controller/config-files/sync-targets.js';
import type { TargetResult } from '../../controller/config-files/config-sync.js';
import type { ConfigAttachmentRow } from '../../controller/store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { route } from '../http/route.js';
import { arrayOf, bool, enumOf, object, str, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { dryRunBody, syncResult, targetResult } from './config-schemas.js';
import { rowOf } from './loaders.js';

const overall = (results: TargetResult[]) => {
  const failed = results.filter((r) => r.status === 'failed').length;
  return failed === 0 ? 'succeeded' : failed === results.length ? 'failed' : 'partial';
};

const batchResult = object({
  environmentId: uuid, status: enumOf('succeeded', 'failed'), rolledBack: bool, targets: arrayOf(targetResult),
  failure: object({ step: enumOf('render', 'read', 'write'), configFileId: uuid, attachmentId: uuid, serverId: uuid, targetPath: str(), message: str() }),
  restored: arrayOf(object({ attachmentId: uuid, serverId: uuid, targetPath: str(), action: enumOf('restored', 'removed'), ok: bool, error: str() })),
});

/**
 * Sync: per attachment, per config file (sync-all), per service, per server, and the
 * all-or-nothing batch. dryRun reads each target over SSH and answers a unified diff, writing nothing.
 */
export default function configSyncRoutes(s: Services) {
  const cs = s.configStore;
  /** The batch's files, all of one environment (400 otherwise). */
  async function batchFiles(operations: Array<{ configFileId: string }>) {
    const ids = [...new Set(operations.map((o) => o.configFileId))];
    const rows = await cs.files.findByIds(ids);
    const files = ids.map((id, i) => {
      const f = rows.find((r) => r.id === id);
      if (!f) throw validationError(`Config file ${id} does not exist`, `operations.${operations.findIndex((o) => o.configFileId === id) ?? i}.configFileId`);
      return f;
    });
    const environmentId = files[0].environmentId;
    if (files.some((f) => f.environmentId !== environmentId)) {
      throw validationError('All config files of one batch must belong to one environment', 'operations');
    }
    return { ids, files, environmentId };
  }

  async function run(ctx: Ctx, environmentId: string, attachments: ConfigAttachmentRow[], dryRun: boolean, serverId?: string) {
    const fileIds = [...new Set(attachments.map((a) => a.configFileId))];
    const files = await cs.files.findByIds(fileIds);
    const targets = await targetsOf(s.configStore.reads, files, attachments, serverId);
    const results = await cs.sync.syncEach(files, targets, dryRun);
    const status = overall(results);
    ctx.state.audit = {
      environmentId,
      details: { dryRun, status, targets: results.length, written: results.filter((r) => r.status === 'written').length,
        failed: results.filter((r) => r.status === 'failed').length },
    };
    if (!dryRun && results.length) {
      await s.events.publish('config.synced', environmentId, { configFileIds: fileIds, status, targets: results.length,
        serverIds: [...new Set(results.map((r) => r.serverId))] });
    }
    return { dryRun, status, targets: results };
  }

  const common = { tag: 'config-sync', access: 'operator' as const, body: dryRunBody, response: syncResult };
  return [
    route<{ dryRun?: boolean }, unknown, ConfigAttachmentRow>({
      ...common, method: 'POST', path: '/api/config-attachments/{id}/sync', operationId: 'syncConfigAttachment',
      summary: 'Write one attachment to every server of its service (dryRun: diff only)',
      load: rowOf(cs.attachments, 'Config attachment'),
      handler: (ctx, { resource, body }) => run(ctx, resource.environmentId, [resource], body.dryRun ?? false),
    }),

    route<{ dryRun?: boolean }, unknown, ConfigFileRow>({
      ...common, method: 'POST', path: '/api/config-files/{id}/sync-all', operationId: 'syncConfigFile',
      summary: 'Write the file to every attachment and server (dryRun: a unified diff per target, nothing written)',
      load: rowOf(cs.files, 'Config file'),
      handler: async (ctx, { resource, body }) => run(ctx, resource.environmentId, await cs.attachments.forFiles([resource.id]), body.dryRun ?? false),
    }),

    route<{ dryRun?: boolean }, unknown, { id: string; environmentId: string }>({
      ...common, method: 'POST', path: '/api/services/{id}/sync-config', operationId: 'syncServiceConfig',
      summary: "Write every config file attached to the service to the service's servers",
      load: async (_ctx, params) => {
        const row = await s.services.findById(params.id);
        if (!row) throw notFound('Service');
        return row;
      },
      handler: async (ctx, { resource, body }) => run(ctx, resource.environmentId,
        await cs.attachments.forService(resource.id), body.dryRun ?? false),
    }),

    route<{ dryRun?: boolean }, unknown, { id: string; environmentId: string }>({
      ...common, method: 'POST', path: '/api/servers/{id}/sync-config', operationId: 'syncServerConfig',
      summary: 'Write every config file attached to a service deployed on this server, to this server',
      load: async (_ctx, params) => {
        const row = await s.servers.findById(params.id);
        if (!row) throw notFound('Server');
        return row;
      },
      async handler(ctx, { resource, body }) {
        const atts = await cs.attachments.forServer(resource.id);
        return run(ctx, resource.environmentId, atts, body.dryRun ?? false, resource.id);
      },
    }),

    route<{ operations: Array<{ configFileId: string }>; rollbackOnFailure: boolean }>({
      method: 'POST', path: '/api/sync/batch', operationId: 'executeSyncBatch', tag: 'config-sync', access: 'operator',
      summary: 'Sync several config files all-or-nothing: on failure every written target is restored or removed',
      body: object({
        operations: arrayOf(object({ configFileId: uuid }, ['configFileId']), { minItems: 1, maxItems: 100 }),
        rollbackOnFailure: { type: 'boolean', default: true },
      }, ['operations']),
      response: batchResult,
      // the environment is the files': the caller must be an operator there (policy.ts)
      actsIn: async (_ctx, { body }) => [(await batchFiles(body.operations)).environmentId],
      async handler(ctx, { body }) {
        const { ids, files, environmentId } = await batchFiles(body.operations);
        const targets = await targetsOf(s.configStore.reads, files, await cs.attachments.forFiles(ids));
        const result = await cs.sync.batch(files, targets, body.rollbackOnFailure);
        ctx.state.audit = {
          resourceType: 'config-sync', resourceId: null, environmentId,
          details: { status: result.status, files: files.length, targets: targets.length, rolledBack: result.rolledBack,
            failedStep: result.failure?.step ?? null, restored: result.restored.length },
        };
        await s.events.publish('config.synced', environmentId, { configFileIds: ids, batch: true, status: result.status,
          targets: targets.length, rolledBack: result.rolledBack, failedStep: result.failure?.step ?? null });
        return { environmentId, ...result };
      },
    }),
  ];
}
