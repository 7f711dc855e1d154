// A container image against its registry: tags, the update check, history, one digest, deploy to
// every linked service (the one entrance, as auto-update does) and re-link candidates.
import type { Services } from '../../controller/services.js';
import { conflict, notFound, validationError } from '../../controller/errors/app-error.js';
import { toImageDigest, type ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import { clientFor } from '../../controller/registry/client-for.js';
import { fromRegistry } from '../../controller/registry/as-app-error.js';
import { repositoryOf } from '../../controller/registry/image-reference.js';
import { sortTags } from '../../controller/images/version-policy.js';
import { checkImage } from '../../reconcilers/image/check.js';
import { registryOf } from '../../reconcilers/image/registry-of.js';
import { deployImage } from '../../reconcilers/image/auto-update.js';
import { currentTagOf } from '../../reconcilers/image/current-tag.js';
import { route } from '../http/route.js';
import { arrayOf, bool, listOf, object, paginationQuery, str, uuid } from '../http/schema.js';
import { digestSchema } from './catalog-schemas.js';
import { rowOf } from './loaders.js';

type Page = { limit: number; offset: number };
const nullableStr = { type: 'string', nullable: true } as const;
export const checkResultSchema = object({
  checkedAt: str(), currentTag: nullableStr, latestTag: nullableStr, updateAvailable: bool, newTags: arrayOf(str()),
  changedDigests: arrayOf(object({ tag: str(), previous: str(), digest: str() })), autoUpdatePlanId: { ...uuid, nullable: true }, held: nullableStr,
});
const imageTag = str({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' });

export async function tagsOfImage(s: Services, image: ContainerImageRow): Promise<string[]> {
  return fromRegistry(async () => {
    const { registry, repository } = await registryOf(s, image);
    return sortTags(await clientFor(s, registry).tags(repository));
  });
}

export default function containerImageUpdateRoutes(s: Services) {
  const load = rowOf(s.containerImages, 'Container image');

  return [
    route<unknown, Page, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}/tags', operationId: 'listImageTags', tag: 'container-images', access: 'viewer',
      load, query: paginationQuery, response: listOf(str()), summary: 'Tags of the image in its registry: version tags newest first, then the others',
      async handler(_ctx, { resource, query }) {
        const all = await tagsOfImage(s, resource);
        return { items: all.slice(query.offset, query.offset + query.limit), total: all.length, limit: query.limit, offset: query.offset };
      },
    }),

    route<unknown, unknown, ContainerImageRow>({
      method: 'POST', path: '/api/container-images/{id}/check-updates', operationId: 'checkImageUpdates', tag: 'container-images',
      access: 'operator', load, response: checkResultSchema, errors: [404, 409, 503],
      summary: 'Checks the registry now: newer tags under the policy, re-pushed tags (digest changed); with autoUpdate, deploys what it finds',
      handler: async (_ctx, { resource }) => fromRegistry(() => checkImage(s, resource.id)),
    }),

    route<unknown, Page, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}/history', operationId: 'listImageHistory', tag: 'container-images', access: 'viewer',
      load, query: paginationQuery, response: listOf(digestSchema), summary: 'Each tag and digest the image had, by when it first appeared (newest first)',
      async handler(_ctx, { resource, query }) {
        const page = await s.containerImages.history(resource.id, query);
        return { ...page, items: page.items.map(toImageDigest) };
      },
    }),

    route<unknown, unknown, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}/digests/{digestId}', operationId: 'getImageDigest', tag: 'container-images', access: 'viewer',
      load, response: digestSchema, summary: 'One digest seen for the image',
      async handler(_ctx, { resource, params }) {
        const row = /^[0-9a-f-]{36}$/i.test(params.digestId) ? await s.containerImages.findDigest(resource.id, params.digestId) : undefined;
        if (!row) throw notFound('Digest');
        return toImageDigest(row);
      },
    }),

    route<{ imageTag?: string }, unknown, ContainerImageRow>({
      method: 'POST', path: '/api/container-images/{id}/deploy', operationId: 'deployImage', tag: 'container-images', access: 'operator',
      load, body: object({ imageTag }), status: 202, response: { type: 'object' }, errors: [409],
      summary: 'Deploys the image (imageTag, default the newest found, else the current) to every linked service: one plan in dependency order with auto-rollback',
      async handler(ctx, { resource, body }) {
        const tag = body.imageTag ?? resource.latestTag ?? await currentTagOf(s, resource);
        if (!tag) throw validationError('The image has no current tag: give imageTag', 'imageTag');
        const plan = await deployImage(s, resource, tag, { trigger: 'image-deploy', createdBy: ctx.state.actor!.name });
        if (!plan) throw conflict('No service is linked to this image', 'Link one with POST /api/container-images/{id}/link-service');
        ctx.state.audit = { details: { imageName: resource.imageName, imageTag: tag, planId: plan.id } };
        return plan;
      },
    }),

    route<unknown, unknown, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}/relink-candidates', operationId: 'listImageRelinkCandidates', tag: 'container-images',
      access: 'viewer', load, summary: "Services of the environment that run another image of the same repository (or one the registry's autoLinkPattern matches)",
      response: object({ items: arrayOf(object({ id: uuid, name: str(), imageTag: nullableStr, containerImageId: uuid, imageName: str() })) }),
      async handler(_ctx, { resource }) {
        const registry = resource.registryConnectionId ? await s.registries.findById(resource.registryConnectionId) : undefined;
        return { items: await s.containerImages.relinkCandidates(resource, repositoryOf(resource.imageName).repository, registry?.autoLinkPattern ?? null) };
      },
    }),
  ];
}


