import type { Services } from '../../controller/services.js';
import type { ContainerImageRow } from '../../controller/store/repositories/container-images.js';
import { sortTags } from '../../controller/images/version-policy.js';

/** The tag the image is at: the one recorded by the last deploy of it, else the newest its linked services want. */
export async function currentTagOf(s: Pick<Services, 'services'>, image: ContainerImageRow): Promise<string | null> {
  if (image.currentTag) return image.currentTag;
  const tags = (await s.services.listByImage(image.id)).map((x) => x.imageTag).filter((t): t is string => !!t);
  return sortTags([...new Set(tags)])[0] ?? null;
}
