// The image reconciler's pure part: from the tags and digests the registry shows and what was
// recorded before, what is new and what (if anything) auto-update should deploy. The update-check
// route, the periodic reconcile and auto-update all read this one function.
import { newerTags, newestTag, type VersionPolicy } from '../../controller/images/version-policy.js';

export interface ImageObservation {
  currentTag: string | null;
  policy: VersionPolicy | null;
  tags: string[];
  /** Digest now, and the one recorded before (undefined: never seen), per tag that was looked at. */
  digests: Record<string, { now: string; before?: string }>;
  /** The version whose auto-update failed and rolled back. */
  failed: { tag: string; digest: string | null } | null;
}

export interface ImageUpdatePlan {
  latestTag: string | null;
  newTags: string[];
  /** Tags whose digest changed since the last check (a re-push: `latest`, `stable`, or the current tag). */
  changedDigests: Array<{ tag: string; previous: string; digest: string }>;
  updateAvailable: boolean;
  /** What auto-update deploys (null: nothing, or only what already failed). */
  deploy: { tag: string; digest: string | null; why: 'newer-tag' | 'digest-changed' } | null;
  /** Why nothing is deployed although an update exists (for people). */
  held: string | null;
}

export function planImageUpdate(o: ImageObservation): ImageUpdatePlan {
  const policy = o.policy ?? undefined;
  const latestTag = newestTag(o.tags, o.currentTag, policy);
  const newTags = newerTags(o.tags, o.currentTag, policy);
  const changedDigests = Object.entries(o.digests)
    .filter(([, d]) => d.before !== undefined && d.before !== d.now)
    .map(([tag, d]) => ({ tag, previous: d.before!, digest: d.now }));
  const currentRepushed = o.currentTag ? changedDigests.find((c) => c.tag === o.currentTag) : undefined;
  const updateAvailable = latestTag !== null || !!currentRepushed;

  let deploy: ImageUpdatePlan['deploy'] = null;
  let held: string | null = null;
  const isFailed = (tag: string, digest: string | null) => !!o.failed && o.failed.tag === tag && (o.failed.digest === null || o.failed.digest === digest);
  // the failed version is held back until a newer tag (or a re-push of it: a new digest) appears;
  // a re-push of the current tag is still deployed while a newer tag is held back
  const candidates: Array<{ tag: string; why: 'newer-tag' | 'digest-changed' }> = [];
  if (latestTag) candidates.push({ tag: latestTag, why: 'newer-tag' });
  if (currentRepushed) candidates.push({ tag: currentRepushed.tag, why: 'digest-changed' });
  for (const c of candidates) {
    const digest = o.digests[c.tag]?.now ?? null;
    if (isFailed(c.tag, digest)) {
      held ??= `${c.tag} failed and was rolled back; waiting for a newer version`;
      continue;
    }
    deploy = { tag: c.tag, digest, why: c.why };
    break;
  }
  return { latestTag, newTags, changedDigests, updateAvailable, deploy, held };
}
