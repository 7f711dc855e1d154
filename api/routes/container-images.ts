import type { Services } from '../../controller/services.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import {
  toContainerImage, type ContainerImageRow, type ContainerImageSpec,
} from '../../controller/store/repositories/container-images.js';
import { toImageDigest } from '../../controller/store/repositories/container-images.js';
import { route } from '../http/route.js';
import { listOf, object, paginationQuery, uuid } from '../http/schema.js';
import { containerImage } from '../../controller/kinds/container-image.js';
import { digestSchema } from './catalog-schemas.js';
import { checkImageSpec } from './catalog-checks.js';
import { environmentOf, rowOf } from './loaders.js';
import { changeServiceSpec } from '../../reconcilers/entrance.js';

const containerImageSchemas = containerImage.schemas!;

type Page = { limit: number; offset: number };
const DETAIL_DIGESTS = 20;

// By hand, not on the generic CRUD routes (api/routes/kind-crud.ts): an image is named by its
// imageName (no name column), its get adds digests and services the list leaves out, and an
// update audits which spec fields changed.
export default function containerImageRoutes(s: Services) {
  const env = environmentOf(s);
  const load = rowOf(s.containerImages, 'Container image');
  const detail = async (image: ContainerImageRow) => {
    const [digests, services] = await Promise.all([
      s.containerImages.listDigests(image.id, { limit: DETAIL_DIGESTS, offset: 0 }),
      s.services.listByImage(image.id),
    ]);
    return toContainerImage(image, { digests: digests.items, services });
  };

  return [
    route<unknown, Page>({
      method: 'GET', path: '/api/environments/{envId}/container-images', operationId: 'listContainerImages', tag: 'container-images',
      access: 'viewer', summary: 'Container images of an environment, by name', load: env, query: paginationQuery,
      response: listOf(containerImageSchemas.read),
      async handler(_ctx, { resource, query }) {
        const page = await s.containerImages.list({ environmentId: resource.id }, query, 'imageName');
        return { ...page, items: page.items.map((i) => toContainerImage(i)) };
      },
    }),

    route<ContainerImageSpec & { imageName: string }>({
      method: 'POST', path: '/api/environments/{envId}/container-images', operationId: 'createContainerImage', tag: 'container-images',
      access: 'operator', summary: 'Register an image (name without tag)', load: env, body: containerImageSchemas.create,
      readOnly: containerImageSchemas.readOnly, status: 201, response: containerImageSchemas.read, errors: [409],
      async handler(_ctx, { resource, body }) {
        await checkImageSpec(s, resource.id, body);
        const row = await s.containerImages.insert({ environmentId: resource.id, ...body });
        return toContainerImage(row, { digests: [], services: [] });
      },
    }),

    route<unknown, unknown, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}', operationId: 'getContainerImage', tag: 'container-images', access: 'viewer',
      summary: `One image with its linked services and its ${DETAIL_DIGESTS} most recent digests`, load, response: containerImageSchemas.read,
      handler: async (_ctx, { resource }) => detail(resource),
    }),

    route<ContainerImageSpec, unknown, ContainerImageRow>({
      method: 'PATCH', path: '/api/container-images/{id}', operationId: 'updateContainerImage', tag: 'container-images',
      access: 'operator', summary: 'Rename an image, change its registry or its autoUpdate flag', load,
      body: containerImageSchemas.update, readOnly: containerImageSchemas.readOnly, response: containerImageSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        await checkImageSpec(s, resource.environmentId, body);
        const { row, changed } = await s.containerImages.updateSpec(resource, body);
        ctx.state.audit = { details: { imageName: row.imageName, changed } };
        return detail(row);
      },
    }),

    route<unknown, unknown, ContainerImageRow>({
      method: 'DELETE', path: '/api/container-images/{id}', operationId: 'deleteContainerImage', tag: 'container-images',
      access: 'operator', summary: 'Delete an image; refused while services use it', load, status: 204, errors: [409],
      async handler(ctx, { resource }) {
        const users = await s.services.listByImage(resource.id);
        if (users.length) {
          throw conflict(`The image is used by ${users.length} service(s): ${users.slice(0, 5).map((u) => u.name).join(', ')}`,
            'Point those services at another image or delete them first');
        }
        await s.containerImages.delete(resource.id);
        ctx.state.audit = { environmentId: resource.environmentId, details: { imageName: resource.imageName } };
        return undefined;
      },
    }),

    route<unknown, Page, ContainerImageRow>({
      method: 'GET', path: '/api/container-images/{id}/digests', operationId: 'listImageDigests', tag: 'container-images',
      access: 'viewer', summary: 'Digests seen for the image, most recent first', load, query: paginationQuery, response: listOf(digestSchema),
      async handler(_ctx, { resource, query }) {
        const page = await s.containerImages.listDigests(resource.id, query);
        return { ...page, items: page.items.map(toImageDigest) };
      },
    }),

    route<{ serviceId: string }, unknown, ContainerImageRow>({
      method: 'POST', path: '/api/container-images/{id}/link-service', operationId: 'linkServiceToImage', tag: 'container-images',
      access: 'operator', summary: 'Make a service of the same environment run this image (bumps the service generation)', load,
      body: object({ serviceId: uuid }, ['serviceId']), response: containerImageSchemas.read,
      async handler(ctx, { resource, body }) {
        const service = await s.services.findById(body.serviceId);
        if (!service || service.environmentId !== resource.environmentId) {
          throw validationError('serviceId names no service of this environment', 'serviceId');
        }
        const { changed } = await changeServiceSpec(s, service, { containerImageId: resource.id }, ctx.state.actor!.name);
        ctx.state.audit = { details: { serviceId: service.id, serviceName: service.name, changed: changed.length > 0 } };
        return detail(resource);
      },
    }),
  ];
}
