import type { Services } from '../../controller/services.js';
import { conflict } from '../../controller/errors/app-error.js';
import { filesUsingFragment, syncedAttachmentsOf } from '../../controller/config-files/fragment-users.js';
import { RESYNC_KIND } from '../../controller/config-files/resync-worker.js';
import { assertValidTemplate } from '../../controller/config-files/template-rules.js';
import type { ConfigFragmentRow } from '../../controller/store/repositories/config-fragments.js';
import { route } from '../http/route.js';
import { listOf, paginationQuery } from '../http/schema.js';
import { configFragment } from '../../controller/kinds/config-fragment.js';
import { environmentOf, rowOf } from './loaders.js';

const { create, update, read: fragmentRead, readOnly } = configFragment.schemas!;

const toFragment = (f: ConfigFragmentRow, usedBy: Array<{ id: string; name: string }>) => ({
  id: f.id, environmentId: f.environmentId, name: f.name, content: f.content, description: f.description,
  generation: f.generation, usedBy, source: f.source, createdAt: f.createdAt, updatedAt: f.updatedAt,
});

// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): an update answers which files
// it resyncs (`resync`) and queues them, and a rename is refused while files include the fragment.
/**
 * Config fragments: snippets included with ${fragment:NAME}. Reads list the files using each;
 * deleting or renaming one in use is a CONFLICT; a content change queues a resync of every
 * attached file using it that was synced before.
 */
export default function configFragmentRoutes(s: Services) {
  const cs = s.configStore;
  const load = rowOf(cs.fragments, 'Config fragment');
  const usedBy = (f: ConfigFragmentRow) => filesUsingFragment(s.configStore.reads, f.environmentId, f.name);
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/config-fragments', operationId: 'listConfigFragments',
      tag: 'config-fragments', access: 'viewer', summary: 'Config fragments with the files using them',
      load: environmentOf(s), query: paginationQuery, response: listOf(fragmentRead),
      async handler(_ctx, { resource, query }) {
        const page = await cs.fragments.list({ environmentId: resource.id }, query, 'name');
        return { ...page, items: await Promise.all(page.items.map(async (f) => toFragment(f, await usedBy(f)))) };
      },
    }),

    route<{ name: string; content: string; description?: string | null }>({
      method: 'POST', path: '/api/environments/{envId}/config-fragments', operationId: 'createConfigFragment',
      tag: 'config-fragments', access: 'operator', summary: 'Create a fragment (it may use ${KEY}, not other fragments)',
      load: environmentOf(s), body: create,
      readOnly, status: 201, response: fragmentRead, errors: [409],
      async handler(_ctx, { resource, body }) {
        assertValidTemplate(body.content, { allowFragments: false });
        const row = await cs.fragments.insert({ environmentId: resource.id, name: body.name, content: body.content, description: body.description ?? null });
        return toFragment(row, []);
      },
    }),

    route({
      method: 'GET', path: '/api/config-fragments/{id}', operationId: 'getConfigFragment', tag: 'config-fragments',
      access: 'viewer', summary: 'One fragment with the config files that include it', load, response: fragmentRead,
      handler: async (_ctx, { resource }) => toFragment(resource, await usedBy(resource)),
    }),

    route<{ name?: string; content?: string; description?: string | null }, unknown, ConfigFragmentRow>({
      method: 'PATCH', path: '/api/config-fragments/{id}', operationId: 'updateConfigFragment', tag: 'config-fragments',
      access: 'operator', summary: 'Change a fragment; a content change resyncs the attached, already-synced files using it',
      load, body: update,
      readOnly, response: fragmentRead, errors: [409],
      async handler(ctx, { resource, body }) {
        if (body.content !== undefined) assertValidTemplate(body.content, { allowFragments: false });
        const users = await usedBy(resource);
        if (body.name !== undefined && body.name !== resource.name && users.length) {
          throw conflict(`Fragment ${resource.name} is in use and cannot be renamed`, 'Change the files that include it first', 'name');
        }
        const contentChanged = body.content !== undefined && body.content !== resource.content;
        const row = await cs.fragments.update(resource.id, { ...body, generation: resource.generation + 1 });
        const attachmentIds = contentChanged ? await syncedAttachmentsOf(s.configStore.reads, users.map((u) => u.id)) : [];
        for (const id of attachmentIds) s.queue.add(`${RESYNC_KIND}/${id}`);
        ctx.state.audit = { details: { fields: Object.keys(body), name: row!.name, resyncQueued: attachmentIds.length, files: users.length } };
        return { ...toFragment(row!, users), resync: { configFiles: contentChanged ? users : [], attachmentIds } };
      },
    }),

    route<unknown, unknown, ConfigFragmentRow>({
      method: 'DELETE', path: '/api/config-fragments/{id}', operationId: 'deleteConfigFragment', tag: 'config-fragments',
      access: 'operator', summary: 'Delete a fragment; 409 while a config file includes it', load, status: 204, errors: [409],
      async handler(ctx, { resource }) {
        const users = await usedBy(resource);
        if (users.length) {
          throw conflict(`Fragment ${resource.name} is used by ${users.map((u) => u.name).join(', ')}`,
            'Remove ${fragment:' + resource.name + '} from those config files first');
        }
        await cs.fragments.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { name: resource.name } };
        return undefined;
      },
    }),
  ];
}
