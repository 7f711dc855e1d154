// A service's view of its image: the registry's tags and whether a newer one exists (the image's
// update check, with the service's own tag as the current one when it differs).
import type { Services } from '../../controller/services.js';
import { validationError } from '../../controller/errors/app-error.js';
import type { ServiceRow } from '../../controller/store/repositories/services.js';
import { isNewer, newerTags } from '../../controller/images/version-policy.js';
import { checkImage } from '../../reconcilers/image/check.js';
import { fromRegistry } from '../../controller/registry/as-app-error.js';
import { route } from '../http/route.js';
import { arrayOf, bool, object, str } from '../http/schema.js';
import { rowOf } from './loaders.js';
import { tagsOfImage } from './container-image-updates.js';

const nullableStr = { type: 'string', nullable: true } as const;

export default function serviceImageUpdateRoutes(s: Services) {
  const load = rowOf(s.services, 'Service');
  const imageOf = async (svc: ServiceRow) => {
    const image = svc.containerImageId ? await s.containerImages.findById(svc.containerImageId) : undefined;
    if (!image) throw validationError('The service has no container image', 'containerImageId', 'Link one with POST /api/container-images/{id}/link-service');
    return image;
  };

  return [
    route<unknown, unknown, ServiceRow>({
      method: 'GET', path: '/api/services/{id}/image-tags', operationId: 'listServiceImageTags', tag: 'services', access: 'viewer', load,
      summary: "Tags of the service's image in its registry, version tags newest first; which of them are newer than the service's tag",
      response: object({ imageName: str(), currentTag: nullableStr, tags: arrayOf(object({ tag: str(), newer: bool, current: bool })) }),
      async handler(_ctx, { resource }) {
        const image = await imageOf(resource);
        const tags = await tagsOfImage(s, image);
        const policy = image.policy ?? undefined;
        return { imageName: image.imageName, currentTag: resource.imageTag, tags: tags.map((tag) => ({ tag, newer: isNewer(tag, resource.imageTag, policy), current: tag === resource.imageTag })) };
      },
    }),

    route<unknown, unknown, ServiceRow>({
      method: 'POST', path: '/api/services/{id}/check-updates', operationId: 'checkServiceUpdates', tag: 'services', access: 'operator', load,
      summary: "Checks the service's image now; newerTags are the tags newer than the service's own tag under the image's policy",
      response: object({ imageName: str(), serviceTag: nullableStr, newerTags: arrayOf(str()), updateAvailable: bool, check: { type: 'object' } }),
      async handler(_ctx, { resource }) {
        const image = await imageOf(resource);
        const check = await fromRegistry(() => checkImage(s, image.id));
        const newer = newerTags(await tagsOfImage(s, image), resource.imageTag, image.policy ?? undefined);
        const repushed = check.changedDigests.some((c) => c.tag === resource.imageTag);
        return { imageName: image.imageName, serviceTag: resource.imageTag, newerTags: newer, updateAvailable: newer.length > 0 || repushed, check };
      },
    }),
  ];
}
