import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import type { ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { readMultipart, type MultipartForm } from '../http/multipart.js';
import { route } from '../http/route.js';
import { validateBody } from '../http/validate.js';
import { object } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { description, fileName } from './config-schemas.js';
import { configFileRead, toConfigFile } from './config-file-view.js';
import { environmentOf, rowOf } from './loaders.js';

const multipartBody = {
  content: {
    'multipart/form-data': {
      schema: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, file: { type: 'string', format: 'binary' } }, required: ['file'] },
    },
  },
};

function theFile(form: MultipartForm) {
  const file = form.files.find((f) => f.field === 'file');
  if (!file) throw validationError('file is required', 'file');
  return file;
}

const actorName = (ctx: Ctx) => ctx.state.actor?.name ?? null;

/** Binary config assets (certificates, keystores, images): uploaded and replaced by multipart, synced as-is. */
export default function configAssetRoutes(s: Services) {
  const cs = s.configStore;
  return [
    route({
      method: 'POST', path: '/api/environments/{envId}/config-files/assets', operationId: 'uploadConfigAsset',
      tag: 'config-files', access: 'operator', summary: 'Upload a binary asset (multipart: file, name?, description?)',
      load: environmentOf(s), status: 201, response: configFileRead, errors: [409],
      requestBody: multipartBody,
      async handler(ctx, { resource }) {
        const form = await readMultipart(ctx);
        const file = theFile(form);
        const meta = validateBody<{ name: string; description?: string }>(object({ name: fileName, description }, ['name']),
          { name: form.fields.name ?? file.filename, ...(form.fields.description !== undefined && { description: form.fields.description }) });
        const row = await s.transaction(async (trx) => {
          const f = await cs.files.insert({
            environmentId: resource.id, name: meta.name, kind: 'asset', content: null, data: file.data,
            contentType: file.contentType, description: meta.description ?? null,
          }, trx);
          await cs.files.addRevision(f, actorName(ctx), 'upload', trx);
          return f;
        });
        ctx.state.audit = { details: { name: row.name, size: file.data.length } };
        return toConfigFile(row, []);
      },
    }),

    route<unknown, unknown, ConfigFileRow>({
      method: 'PUT', path: '/api/config-files/{id}/asset', operationId: 'replaceConfigAsset', tag: 'config-files',
      access: 'operator', summary: "Replace a binary asset's bytes (multipart: file); adds a revision",
      load: rowOf(cs.files, 'Config file'), response: configFileRead, requestBody: multipartBody,
      async handler(ctx, { resource }) {
        if (resource.kind !== 'asset') throw validationError('This config file is a template: change its content instead', 'file');
        const file = theFile(await readMultipart(ctx));
        const row = await s.transaction(async (trx) => {
          const f = await cs.files.update(resource.id, {
            data: file.data, contentType: file.contentType, revision: resource.revision + 1, generation: resource.generation + 1,
          }, trx);
          await cs.files.addRevision(f!, actorName(ctx), 'upload', trx);
          return f!;
        });
        ctx.state.audit = { details: { size: file.data.length, revision: row.revision } };
        return toConfigFile(row);
      },
    }),
  ];
}
