import { conflict } from '../../controller/errors/app-error.js';
import type { RouteSpec } from './route.js';
import { editHint, ownedFields, ownerOf, type ManifestSource } from '../../controller/manifests/owned-fields.js';
/** Sub-collection actions (POST /api/{kind}/{id}/{sub}) that change a manifest-owned list. */
const OWNED_LISTS: Record<string, string> = { deployments: 'deployments', dependencies: 'dependsOn' };

interface Owned { source?: ManifestSource; deployment?: Owned }

const refuse = (source: ManifestSource, fields: string[]) => conflict(
  `${fields.length ? fields.join(', ') : 'This object'} ${fields.length > 1 ? 'are' : 'is'} managed by the manifest ${ownerOf(source)}`,
  `${editHint(source)}, or remove the field from it to manage it through the API`,
  fields[0],
);

/**
 * The one ownership check of the API (mount.ts calls it for every write after validation):
 * fields a manifest sets belong to it, so writing them through the API is 409 CONFLICT with a
 * hint naming the file. It keys on the `source` of the resource the route loaded, so any item
 * route whose `load` returns a row of a table with a `source` column is covered:
 * - PATCH/PUT: the body's fields that the manifest owns (settings routes map to settings.<module>.<field>);
 * - DELETE of an item (a path ending in a parameter): the whole object;
 * - POST /api/{kind}/{id}/deployments|dependencies: the owned list.
 */
export function assertNotManifestOwned(spec: RouteSpec, params: Record<string, string>, resource: unknown, body: unknown): void {
  // Deployment routes load {service, deployment}: the deployment is what they write.
  const loaded = resource as Owned | undefined;
  const source = (loaded?.deployment ?? loaded)?.source;
  if (!source || source.kind !== 'manifest' || !source.path) return;
  const owned = new Set(source.fields ?? []);
  if (spec.method === 'PATCH' || spec.method === 'PUT') {
    const prefix = params.module && spec.path.includes('{module}') ? `settings.${params.module}.` : '';
    const hit = ownedFields(source, Object.keys((body && typeof body === 'object' ? body : {}) as object), prefix);
    if (hit.length) throw refuse(source, hit);
  } else if (spec.method === 'DELETE' && /\}$/.test(spec.path)) {
    throw refuse(source, []);
  } else if (spec.method === 'DELETE' && spec.path.endsWith('/ssh-key') && owned.has('sshPrivateKey')) {
    throw refuse(source, ['sshPrivateKey']);
  } else if (spec.method === 'POST') {
    const sub = /^\/api\/[a-z-]+\/\{id\}\/([a-z-]+)$/.exec(spec.path)?.[1];
    if (sub && OWNED_LISTS[sub] && owned.has(OWNED_LISTS[sub])) throw refuse(source, [OWNED_LISTS[sub]]);
  }
}
