import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { render } from '../../controller/config-files/render.js';
import { assertValidTemplate } from '../../controller/config-files/template-rules.js';
import { toAttachment } from '../../controller/store/repositories/config-attachments.js';
import type { ConfigFileRow } from '../../controller/store/repositories/config-files.js';
import { route } from '../http/route.js';
import { arrayOf, int, INT32_MAX, listOf, object, paginationQuery, str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { configFile } from '../../controller/kinds/config-file.js';
import { revisionRead, toConfigFile, toRevision } from './config-file-view.js';
import { environmentOf, rowOf } from './loaders.js';

const { create, update, read: configFileRead, readOnly } = configFile.schemas!;
const actorName = (ctx: Ctx) => ctx.state.actor?.name ?? null;

// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): a write validates the template
// against the environment's keys and fragments and keeps its edit history, restored by id.
/** Config files: templates with ${KEY} placeholders, their preview, edit history and restore. */
export default function configFileRoutes(s: Services) {
  const cs = s.configStore;
  const load = rowOf(cs.files, 'Config file');
  const withAttachments = async (f: ConfigFileRow) => {
    const atts = await cs.attachments.forFiles([f.id]);
    const states = await cs.attachments.syncStates(atts.map((a) => a.id));
    return toConfigFile(f, atts.map((a) => toAttachment(a, states)));
  };
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/config-files', operationId: 'listConfigFiles', tag: 'config-files',
      access: 'viewer', summary: 'Config files; content is the stored template with placeholders intact',
      load: environmentOf(s), query: paginationQuery, response: listOf(configFileRead),
      async handler(_ctx, { resource, query }) {
        const page = await cs.files.list({ environmentId: resource.id }, query, 'name');
        return { ...page, items: page.items.map((f) => toConfigFile(f)) };
      },
    }),

    route<{ name: string; content: string; description?: string | null }>({
      method: 'POST', path: '/api/environments/{envId}/config-files', operationId: 'createConfigFile', tag: 'config-files',
      access: 'operator', summary: 'Create a template config file (binary assets: the multipart upload route)',
      load: environmentOf(s), body: create,
      readOnly, status: 201, response: configFileRead, errors: [409],
      async handler(ctx, { resource, body }) {
        assertValidTemplate(body.content, { allowFragments: true });
        const row = await s.transaction(async (trx) => {
          const f = await cs.files.insert({ environmentId: resource.id, name: body.name, kind: 'template', content: body.content, description: body.description ?? null }, trx);
          await cs.files.addRevision(f, actorName(ctx), 'create', trx);
          return f;
        });
        return toConfigFile(row, []);
      },
    }),

    route({
      method: 'GET', path: '/api/config-files/{id}', operationId: 'getConfigFile', tag: 'config-files', access: 'viewer',
      summary: 'One config file with its attachments and sync state; placeholders intact', load, response: configFileRead,
      handler: async (_ctx, { resource }) => withAttachments(resource),
    }),

    route<{ name?: string; content?: string; description?: string | null }, unknown, ConfigFileRow>({
      method: 'PATCH', path: '/api/config-files/{id}', operationId: 'updateConfigFile', tag: 'config-files', access: 'operator',
      summary: 'Change name, description or content; a content change adds a revision', load,
      body: update,
      readOnly, response: configFileRead, errors: [409],
      async handler(ctx, { resource, body }) {
        if (body.content !== undefined) {
          if (resource.kind === 'asset') throw validationError('A binary asset is replaced by upload, not by content', 'content');
          assertValidTemplate(body.content, { allowFragments: true });
        }
        const changed = body.content !== undefined && body.content !== resource.content;
        const row = await s.transaction(async (trx) => {
          const f = await cs.files.update(resource.id, {
            ...body, generation: resource.generation + 1, ...(changed && { revision: resource.revision + 1 }),
          }, trx);
          if (changed) await cs.files.addRevision(f!, actorName(ctx), 'update', trx);
          return f!;
        });
        ctx.state.audit = { details: { fields: Object.keys(body), revision: row.revision } };
        return withAttachments(row);
      },
    }),

    route<unknown, unknown, ConfigFileRow>({
      method: 'DELETE', path: '/api/config-files/{id}', operationId: 'deleteConfigFile', tag: 'config-files', access: 'operator',
      summary: 'Delete a config file and its attachments (files already on servers stay)', load, status: 204,
      async handler(ctx, { resource }) {
        await cs.files.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name } };
        return undefined;
      },
    }),

    route<unknown, unknown, ConfigFileRow>({
      method: 'GET', path: '/api/config-files/{id}/preview', operationId: 'previewConfigFile', tag: 'config-files',
      access: 'viewer', summary: 'The file rendered with vars and fragments, secret values redacted; unknown keys reported',
      load,
      response: object({
        kind: str(), content: { type: 'string', nullable: true }, unresolvedKeys: arrayOf(str()), unknownFragments: arrayOf(str()),
        usedSecrets: arrayOf(str()), usedVars: arrayOf(str()), usedFragments: arrayOf(str()), size: int(0),
      }),
      async handler(_ctx, { resource }) {
        if (resource.kind === 'asset') {
          return { kind: 'asset', content: null, unresolvedKeys: [], unknownFragments: [], usedSecrets: [], usedVars: [], usedFragments: [], size: resource.data?.length ?? 0 };
        }
        const ctx = await cs.catalog.renderContext(resource.environmentId, false);
        const out = render(resource.content ?? '', ctx, { redact: true });
        return { kind: 'template', ...out, size: Buffer.byteLength(out.content) };
      },
    }),

    route<unknown, { limit: number; offset: number }, ConfigFileRow>({
      method: 'GET', path: '/api/config-files/{id}/history', operationId: 'listConfigFileHistory', tag: 'config-files',
      access: 'viewer', summary: 'Edit history, newest first', load, query: paginationQuery, response: listOf(revisionRead),
      async handler(_ctx, { resource, query }) {
        const page = await cs.files.revisions(resource.id, query);
        return { ...page, items: page.items.map(toRevision) };
      },
    }),

    route<{ revision: number }, unknown, ConfigFileRow>({
      method: 'POST', path: '/api/config-files/{id}/restore', operationId: 'restoreConfigFile', tag: 'config-files',
      access: 'operator', summary: 'Make an earlier revision current again (as a new revision)', load,
      body: object({ revision: int(1, INT32_MAX) }, ['revision']), response: configFileRead, errors: [404],
      async handler(ctx, { resource, body }) {
        const old = await cs.files.revision(resource.id, body.revision);
        if (!old) throw notFound(`Revision ${body.revision}`);
        const row = await s.transaction(async (trx) => {
          const f = await cs.files.update(resource.id, {
            content: old.content, data: old.data, contentType: old.contentType,
            revision: resource.revision + 1, generation: resource.generation + 1,
          }, trx);
          await cs.files.addRevision(f!, actorName(ctx), `restore of revision ${body.revision}`, trx);
          return f!;
        });
        ctx.state.audit = { details: { restoredRevision: body.revision, revision: row.revision } };
        return withAttachments(row);
      },
    }),
  ];
}
