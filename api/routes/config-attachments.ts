import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import { assertTargetPath } from '../../controller/config-files/target-path.js';
import { toAttachment, type ConfigAttachmentRow } from '../../controller/store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { route } from '../http/route.js';
import { listOf, nullable, object, str, uuid } from '../http/schema.js';
import { fileMode } from './config-schemas.js';
import { attachmentRead } from './config-file-view.js';
import { rowOf } from './loaders.js';

const targetPath = str({ minLength: 1, maxLength: 1024 });
const readOnly = ['id', 'configFileId', 'environmentId', 'syncState', 'createdAt', 'updatedAt'];
const parseMode = (m: string | null | undefined) => (m === undefined ? undefined : m === null ? null : parseInt(m, 8));

/**
 * Attachments place a config file at an absolute path for a service: syncing writes it to every
 * server the service has a deployment on. Detaching leaves the file on the servers.
 */
export default function configAttachmentRoutes(s: Services) {
  const cs = s.configStore;
  const load = rowOf(cs.attachments, 'Config attachment');
  const withState = async (a: ConfigAttachmentRow) => toAttachment(a, await cs.attachments.syncStates([a.id]));
  return [
    route<unknown, unknown, ConfigFileRow>({
      method: 'GET', path: '/api/config-files/{id}/attachments', operationId: 'listConfigAttachments', tag: 'config-files',
      access: 'viewer', summary: 'Where the file is attached, with per-server sync state', load: rowOf(cs.files, 'Config file'),
      response: listOf(attachmentRead),
      async handler(_ctx, { resource }) {
        const atts = await cs.attachments.forFiles([resource.id]);
        const states = await cs.attachments.syncStates(atts.map((a) => a.id));
        return { items: atts.map((a) => toAttachment(a, states)), total: atts.length, limit: atts.length || 1, offset: 0 };
      },
    }),

    route<{ serviceId: string; targetPath: string; mode?: string | null }, unknown, ConfigFileRow>({
      method: 'POST', path: '/api/config-files/{id}/attachments', operationId: 'attachConfigFile', tag: 'config-files',
      access: 'operator', summary: 'Attach the file to a service at an absolute target path (.env files are always 0600)',
      load: rowOf(cs.files, 'Config file'), body: object({ serviceId: uuid, targetPath, mode: nullable(fileMode) }, ['serviceId', 'targetPath']),
      readOnly, status: 201, response: attachmentRead, errors: [409],
      async handler(ctx, { resource, body }) {
        assertTargetPath(body.targetPath);
        const service = await s.services.findById(body.serviceId);
        if (!service || service.environmentId !== resource.environmentId) {
          throw validationError('serviceId names no service of this environment', 'serviceId');
        }
        const row = await cs.attachments.insert({
          configFileId: resource.id, serviceId: body.serviceId, environmentId: resource.environmentId,
          targetPath: body.targetPath, mode: parseMode(body.mode) ?? null,
        });
        ctx.state.audit = { resourceType: 'config-attachments', resourceId: row.id, environmentId: row.environmentId,
          details: { configFileId: resource.id, serviceId: body.serviceId, targetPath: body.targetPath } };
        return toAttachment(row);
      },
    }),

    route({
      method: 'GET', path: '/api/config-attachments/{id}', operationId: 'getConfigAttachment', tag: 'config-attachments',
      access: 'viewer', summary: 'One attachment with per-server sync state', load, response: attachmentRead,
      handler: async (_ctx, { resource }) => withState(resource),
    }),

    route<{ targetPath?: string; mode?: string | null }, unknown, ConfigAttachmentRow>({
      method: 'PATCH', path: '/api/config-attachments/{id}', operationId: 'updateConfigAttachment', tag: 'config-attachments',
      access: 'operator', summary: 'Change the target path or mode (the next sync writes the new path)', load,
      body: object({ targetPath, mode: nullable(fileMode) }, [], { minProperties: 1 }),
      readOnly: [...readOnly, 'serviceId'], response: attachmentRead, errors: [409],
      async handler(ctx, { resource, body }) {
        if (body.targetPath !== undefined) assertTargetPath(body.targetPath);
        const row = await cs.attachments.update(resource.id, {
          ...(body.targetPath !== undefined && { targetPath: body.targetPath }),
          ...(body.mode !== undefined && { mode: parseMode(body.mode) }),
        });
        ctx.state.audit = { details: { fields: Object.keys(body), targetPath: row!.targetPath } };
        return withState(row!);
      },
    }),

    route<unknown, unknown, ConfigAttachmentRow>({
      method: 'DELETE', path: '/api/config-attachments/{id}', operationId: 'detachConfigFile', tag: 'config-attachments',
      access: 'operator', summary: 'Detach (files already written stay on the servers)', load, status: 204,
      async handler(ctx, { resource }) {
        await cs.attachments.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { configFileId: resource.configFileId, serviceId: resource.serviceId } };
        return undefined;
      },
    }),
  ];
}
