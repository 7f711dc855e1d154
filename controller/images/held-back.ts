import type { ContainerImageRow } from '../store/repositories/container-images.js';

/** Why a deploy of `tag` is held back: it is the version whose auto-update failed and rolled back. */
export function heldBack(image: Pick<ContainerImageRow, 'failedTag' | 'imageName'>, tag: string): string | null {
  return image.failedTag === tag ? `${image.imageName}:${tag} failed and was rolled back; it is not deployed again until a newer version appears` : null;
}
