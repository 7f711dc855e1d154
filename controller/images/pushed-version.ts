// What a push announced from outside (the codehost webhook) means for an image: the same reading
// of "newer" as the update check (isNewer under the image's policy) and the same failed-version
// hold as auto-update, so a webhook never deploys what the update check would not.
import type { ContainerImageRow } from '../store/repositories/container-images.js';
import { heldBack } from './held-back.js';
import { isNewer } from './version-policy.js';

export type PushedVersionVerdict =
  | { deploy: true; why: 'newer-tag' | 'repushed-current' }
  | { deploy: false; held: boolean; reason: string };

type ImageFacts = Pick<ContainerImageRow, 'imageName' | 'policy' | 'failedTag' | 'failedDigest'>;

/** Whether a push of `tag` (`digest` when the push names it) should be deployed to an image now at `currentTag`. */
export function judgePushedTag(image: ImageFacts, currentTag: string | null, tag: string, digest: string | null): PushedVersionVerdict {
  const held = heldBack(image, tag, digest);
  if (held) return { deploy: false, held: true, reason: held };
  // a push of the running tag is a re-push: the update check follows it by digest
  if (tag === currentTag) return { deploy: true, why: 'repushed-current' };
  if (isNewer(tag, currentTag, image.policy ?? undefined)) return { deploy: true, why: 'newer-tag' };
  return { deploy: false, held: false, reason: `${image.imageName}:${tag} is not newer than ${currentTag ?? 'no tag'} under the image's policy` };
}
