// The image reconciler's pure part: from the tags and digests the registry shows and what was
// recorded before, what is new and what (if anything) auto-update should deploy. The update-check
// route, the periodic reconcile and auto-update all read this one function.
import { isNewer, newerTags, newestTag, type VersionPolicy } from '../../controller/images/version-policy.js';
import { isFailedVersion } from '../../controller/images/held-back.js';

export interface ImageVersion { tag: string; digest: string | null }
export type UpdateToDeploy = ImageVersion & { why: 'newer-tag' | 'digest-changed' };

export interface ImageObservation {
  currentTag: string | null;
  policy: VersionPolicy | null;
  tags: string[];
  /** Digest now, and the one recorded before (undefined: never seen), per tag that was looked at. */
  digests: Record<string, { now: string; before?: string }>;
  /** The version whose auto-update failed and rolled back. */
  failed: ImageVersion | null;
  /** The auto-update plan still running (nothing new starts until it ends). */
  inFlight?: ImageVersion | null;
  /** An update found while a plan ran, remembered for when it ends (its tag's digest is looked at too). */
  queued?: UpdateToDeploy | null;
}

export interface ImageUpdatePlan {
  latestTag: string | null;
  newTags: string[];
  /** Tags whose digest changed since the last check (a re-push: `latest`, `stable`, or the current tag). */
  changedDigests: Array<{ tag: string; previous: string; digest: string }>;
  updateAvailable: boolean;
  /** What auto-update deploys (null: nothing, or only what already failed). */
  deploy: UpdateToDeploy | null;
  /** What to deploy once the running plan ends: found meanwhile (a re-push is seen only once, by its digest changing). */
  queued: UpdateToDeploy | null;
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

  let wanted: UpdateToDeploy | null = null;
  let held: string | null = null;
  // the failed version is held back until a newer tag (or a re-push of it: a new digest) appears;
  // a re-push of the current tag is still deployed while a newer tag is held back
  const candidates: Array<{ tag: string; why: 'newer-tag' | 'digest-changed' }> = [];
  if (latestTag) candidates.push({ tag: latestTag, why: 'newer-tag' });
  if (currentRepushed) candidates.push({ tag: currentRepushed.tag, why: 'digest-changed' });
  // still worth deploying: the tag still points where it did when found, and is the current tag or newer
  const q = o.queued;
  if (q && o.digests[q.tag]?.now === q.digest && (q.tag === o.currentTag || isNewer(q.tag, o.currentTag, policy))) candidates.push(q);
  for (const c of candidates) {
    const digest = o.digests[c.tag]?.now ?? null;
    if (isFailedVersion(o.failed, c.tag, digest)) {
      held ??= `${c.tag} failed and was rolled back; waiting for a newer version`;
      continue;
    }
    wanted = { tag: c.tag, digest, why: c.why };
    break;
  }
  const f = o.inFlight;
  if (!f) return { latestTag, newTags, changedDigests, updateAvailable, deploy: wanted, queued: null, held };
  // one plan at a time: what the running plan already deploys is not queued again
  const queued = wanted && !(wanted.tag === f.tag && wanted.digest === f.digest) ? wanted : null;
  return { latestTag, newTags, changedDigests, updateAvailable, deploy: null, queued, held };
}
