import type { ContainerImageRow } from '../store/repositories/container-images.js';

export interface FailedVersion { tag: string; digest: string | null }

/**
 * True when (tag, digest) is the version whose auto-update failed and rolled back. A new digest of
 * that tag is a new version (a fixed re-push); an unknown digest (a webhook that names only the
 * tag) counts as the failed one, so nothing is retried on a guess.
 */
export function isFailedVersion(failed: FailedVersion | null, tag: string, digest: string | null): boolean {
  if (!failed || failed.tag !== tag) return false;
  return failed.digest === null || digest === null || failed.digest === digest;
}

/** Why a deploy of `tag` (of `digest`, when known) is held back: it is the version whose auto-update failed and rolled back. */
export function heldBack(image: Pick<ContainerImageRow, 'failedTag' | 'failedDigest' | 'imageName'>, tag: string, digest: string | null = null): string | null {
  const failed = image.failedTag ? { tag: image.failedTag, digest: image.failedDigest } : null;
  return isFailedVersion(failed, tag, digest) ? `${image.imageName}:${tag} failed and was rolled back; it is not deployed again until a newer version appears` : null;
}
