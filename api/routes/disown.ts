// `stevedore disown KIND NAME`: a manifest applied once from a laptop (`apply FILE`) owns the fields
// it set, so PATCH, DELETE and `deploy --tag` answer 409 naming it; nothing else ever releases it.
// POST /api/{collection}/{id}/disown hands the object to the API, audited. An object a Git source or
// the watched folder applies is refused: its next sync would take it over again without a word.
import type { Services } from '../../controller/services.js';
import { conflict, notFound } from '../../controller/errors/app-error.js';
import { DISOWNABLE, ManifestOwnershipRepository, type OwnedRow } from '../../controller/store/repositories/manifest-ownership.js';
import { ownerOf } from '../../controller/manifests/owned-fields.js';
import { route, type RouteSpec } from '../http/route.js';
import { arrayOf, object, str, uuid } from '../http/schema.js';

const released = object({
  id: uuid, environmentId: uuid, name: str({ description: 'The name (the key of a var or secret)' }),
  manifest: str({ description: 'The file that owned it' }),
  fields: arrayOf(str(), { description: 'The fields it set, which the API may change from now on' }),
}, ['id', 'environmentId', 'name', 'manifest', 'fields']);

export default function disownRoutes(s: Services): RouteSpec[] {
  const repo = new ManifestOwnershipRepository(s.db);
  return Object.entries(DISOWNABLE).map(([collection, { kind }]) => route<unknown, unknown, OwnedRow>({
    method: 'POST', path: `/api/${collection}/{id}/disown`, operationId: `disown${kind}`, tag: collection, access: 'admin',
    summary: `Release a ${kind}'s fields from the manifest that set them: the API (PATCH, DELETE, a deploy's tag) may change them again; the next apply of that manifest takes them over again`,
    description: 'Refused (409) when no manifest owns it, and when a Git source or the watched folder applied it (its next sync would own it again).',
    load: async (_ctx, params) => {
      const row = await repo.find(collection, params.id);
      if (!row) throw notFound(kind);
      return row;
    },
    response: released, errors: [409],
    async handler(ctx, { resource }) {
      const source = resource.source ?? {};
      if (source.kind !== 'manifest' || !source.path) throw conflict(`${kind} ${resource.label} is not managed by a manifest; nothing to release`);
      if (source.origin?.startsWith('git:')) {
        throw conflict(`${kind} ${resource.label} is applied from ${ownerOf(source)}: its next sync would take it over again`,
          `Remove it (or the fields) from ${source.path} in ${source.repository ?? 'the repository'} and push`);
      }
      if (s.config.manifestsDir) {
        throw conflict(`${kind} ${resource.label} is applied from the watched folder ${s.config.manifestsDir} (${source.path}): its next change would take it over again`,
          `Remove it (or the fields) from ${source.path} there`);
      }
      if (!(await repo.release(collection, resource.id))) throw conflict(`${kind} ${resource.label} was released meanwhile; nothing to release`);
      const fields = source.fields ?? [];
      ctx.state.audit = { details: { name: resource.label, manifest: source.path, fields } };
      return { id: resource.id, environmentId: resource.environmentId, name: resource.label, manifest: source.path, fields };
    },
  }));
}
