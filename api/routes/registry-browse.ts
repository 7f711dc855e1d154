// Registry connections seen from the registry itself (admin, as the spec lists them): the test
// verdict, repositories, tags (semver-sorted), the services using it, and a forced update check.
import type { Services } from '../../controller/services.js';
import type { RegistryRow } from '../../controller/store/repositories/registries.js';
import { clientFor } from '../../controller/registry/client-for.js';
import { fromRegistry } from '../../controller/registry/as-app-error.js';
import { isRegistryError, NO_ANSWER } from '../../controller/registry/registry-error.js';
import { sortTags } from '../../controller/images/version-policy.js';
import { checkImage } from '../../reconcilers/image/check.js';
import { CHECK_CONCURRENCY, mapBounded } from '../../controller/images/map-bounded.js';
import { route } from '../http/route.js';
import { arrayOf, bool, int, listOf, nonEmpty, object, paginationQuery, str, uuid } from '../http/schema.js';
import { rowOf } from './loaders.js';

type Page = { limit: number; offset: number };
const pageOf = <T>(all: T[], q: Page) => ({ items: all.slice(q.offset, q.offset + q.limit), total: all.length, limit: q.limit, offset: q.offset });
export default function registryBrowseRoutes(s: Services) {
  const load = rowOf(s.registries, 'Registry connection');

  return [
    route<unknown, unknown, RegistryRow>({
      method: 'POST', path: '/api/registries/{id}/test', operationId: 'testRegistry', tag: 'registries', access: 'admin', load,
      summary: 'Tries the connection: reachable, credentials accepted, how many repositories the catalog lists',
      response: object({ ok: bool, reachable: bool, authenticated: bool, repositoryCount: int(0), message: str() }),
      async handler(_ctx, { resource }) {
        const client = clientFor(s, resource);
        try {
          await client.ping();
        } catch (e) {
          if (!isRegistryError(e)) throw e;
          const reachable = e.kind === 'unauthorized' || e.kind === 'protocol' || e.kind === 'not-found';
          // one sentence for every connection-level failure: a test never tells ports apart
          const message = NO_ANSWER.includes(e.kind) ? `${client.host} is unreachable` : e.message;
          return { ok: false, reachable, authenticated: false, message };
        }
        try {
          const repositoryCount = (await client.catalog()).length;
          return { ok: true, reachable: true, authenticated: true, repositoryCount, message: `${client.host} answers; ${repositoryCount} repositories` };
        } catch (e) {
          if (!isRegistryError(e)) throw e;
          // many registries (Docker Hub among them) do not offer the catalog: still a working connection
          return { ok: true, reachable: true, authenticated: true, message: `${client.host} answers; the catalog is not available (${e.message})` };
        }
      },
    }),

    route<unknown, Page, RegistryRow>({
      method: 'GET', path: '/api/registries/{id}/repositories', operationId: 'listRegistryRepositories', tag: 'registries', access: 'admin',
      load, query: paginationQuery, response: listOf(str()), errors: [409], summary: 'Repositories in the registry catalog, by name',
      handler: async (_ctx, { resource, query }) => pageOf((await fromRegistry(() => clientFor(s, resource).catalog())).sort(), query),
    }),

    route<unknown, Page & { repository: string }, RegistryRow>({
      method: 'GET', path: '/api/registries/{id}/tags', operationId: 'listRegistryTags', tag: 'registries', access: 'admin', load,
      query: { ...paginationQuery, repository: nonEmpty(500, { pattern: '^[a-z0-9]+([._/-][a-z0-9]+)*$' }) }, response: listOf(str()), errors: [409],
      summary: 'Tags of a repository (?repository=acme/api): version tags newest first, then the others by name',
      handler: async (_ctx, { resource, query }) => pageOf(sortTags(await fromRegistry(() => clientFor(s, resource).tags(query.repository))), query),
    }),

    route<unknown, unknown, RegistryRow>({
      method: 'GET', path: '/api/registries/{id}/services', operationId: 'listRegistryServices', tag: 'registries', access: 'admin', load,
      summary: 'Services whose container image uses this registry connection',
      response: object({ items: arrayOf(object({ id: uuid, name: str(), containerImageId: uuid, imageName: str(), imageTag: { type: 'string', nullable: true } })) }),
      async handler(_ctx, { resource }) {
        const items = [];
        for (const image of await s.containerImages.listByRegistry(resource.id)) {
          for (const svc of await s.services.listByImage(image.id)) items.push({ id: svc.id, name: svc.name, containerImageId: image.id, imageName: image.imageName, imageTag: svc.imageTag });
        }
        return { items };
      },
    }),

    route<unknown, unknown, RegistryRow>({
      method: 'POST', path: '/api/registries/{id}/check-updates', operationId: 'checkRegistryUpdates', tag: 'registries', access: 'admin', load,
      summary: 'Checks every image of the registry now (bounded concurrency); auto-update images deploy what they find',
      response: object({ checked: int(0), updatesAvailable: int(0), failed: int(0), items: arrayOf({ type: 'object' }) }),
      async handler(_ctx, { resource }) {
        const images = await s.containerImages.listByRegistry(resource.id);
        const items = await mapBounded(images, CHECK_CONCURRENCY, async (image) => {
          try {
            return { containerImageId: image.id, imageName: image.imageName, ...(await checkImage(s, image.id)) };
          } catch (e) {
            if (!isRegistryError(e)) throw e;
            return { containerImageId: image.id, imageName: image.imageName, error: e.message };
          }
        });
        return {
          checked: items.length, updatesAvailable: items.filter((i) => 'updateAvailable' in i && i.updateAvailable).length,
          failed: items.filter((i) => 'error' in i).length, items,
        };
      },
    }),
  ];
}
