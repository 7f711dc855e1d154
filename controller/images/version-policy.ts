// Which tags count as a newer version of an image: one pure function (`isNewer`) that the update
// check, auto-update and the deploy-image / codehost webhooks share, so they never disagree.
//
// Tags are read as versions when they look like one: "1.4.2", "v1.4", "2" (missing parts are 0;
// a leading v is dropped). Prereleases ("1.5.0-rc.1") are never newer unless the policy asks for
// them. A tag that is no version ("latest", "stable", "main-3f2a") is never newer than another:
// such tags are followed by their digest instead (a re-push is an update).
import semver from 'semver';

export type VersionPolicy =
  /** Any newer version inside `range` (npm range syntax: ^1.4, ~1.4.2, >=2 <3); every newer one without it. */
  | { type: 'semver'; range?: string; includePrereleases?: boolean }
  /** Same major version as the current tag. */
  | { type: 'minor'; includePrereleases?: boolean }
  /** Same major and minor version as the current tag. */
  | { type: 'patch'; includePrereleases?: boolean }
  /** Tags matching `pattern`; ordered by the first capture group (or the whole tag) read as a version or a number. */
  | { type: 'regex'; pattern: string; includePrereleases?: boolean }
  /** No tag is ever newer: only the current tag's digest is followed. */
  | { type: 'digest' };

export const DEFAULT_POLICY: VersionPolicy = { type: 'semver' };

const VERSIONISH = /^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*))?(?:\.(0|[1-9]\d*))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** The tag as a full semver version ("v1.4" -> 1.4.0), or null when it is no version. */
export function versionOf(tag: string): semver.SemVer | null {
  const m = VERSIONISH.exec(tag);
  if (!m) return null;
  return semver.parse(`${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}${m[4] ?? ''}${m[5] ?? ''}`);
}

/** What orders tags under the policy: the version, or (regex without a version) the number captured. */
function keyOf(tag: string, policy: VersionPolicy): semver.SemVer | null {
  if (policy.type !== 'regex') return versionOf(tag);
  const m = new RegExp(policy.pattern).exec(tag);
  if (!m) return null;
  const part = m[1] ?? m[0];
  return versionOf(part) ?? (/^\d+$/.test(part) ? semver.parse(`${BigInt(part)}.0.0`) : null);
}

/** A policy given in an API body or manifest is usable: the range parses, the pattern compiles. */
export function policyProblem(policy: VersionPolicy): string | null {
  if (policy.type === 'semver' && policy.range && !semver.validRange(policy.range)) return `range "${policy.range}" is not a semver range`;
  if (policy.type === 'regex') {
    try {
      new RegExp(policy.pattern);
    } catch {
      return `pattern "${policy.pattern}" is not a valid regular expression`;
    }
  }
  return null;
}

/** True when `candidate` is a newer version than `current` that the policy lets through. */
export function isNewer(candidate: string, current: string | null, policy: VersionPolicy = DEFAULT_POLICY): boolean {
  if (policy.type === 'digest' || candidate === current) return false;
  const next = keyOf(candidate, policy);
  if (!next) return false;
  if (next.prerelease.length && !policy.includePrereleases) return false;
  if (policy.type === 'semver' && policy.range && !semver.satisfies(next, policy.range, { includePrerelease: !!policy.includePrereleases })) return false;
  const now = current == null ? null : keyOf(current, policy);
  if (!now) return current == null && policy.type !== 'minor' && policy.type !== 'patch';
  if (policy.type === 'minor' && next.major !== now.major) return false;
  if (policy.type === 'patch' && (next.major !== now.major || next.minor !== now.minor)) return false;
  return semver.gt(next, now);
}

/** The newest tag the policy allows over `current`, or null when there is none. */
export function newestTag(tags: readonly string[], current: string | null, policy: VersionPolicy = DEFAULT_POLICY): string | null {
  let best: string | null = null;
  for (const tag of tags) {
    if (!isNewer(tag, current, policy)) continue;
    if (best === null || semver.gt(keyOf(tag, policy)!, keyOf(best, policy)!)) best = tag;
  }
  return best;
}

/** Every tag newer than `current` under the policy, newest first. */
export function newerTags(tags: readonly string[], current: string | null, policy: VersionPolicy = DEFAULT_POLICY): string[] {
  return sortTags(tags.filter((t) => isNewer(t, current, policy)));
}

/** Version tags newest first (a release before its prereleases), then the other tags by name. */
export function sortTags(tags: readonly string[]): string[] {
  const versions = tags.filter((t) => versionOf(t)).sort((a, b) => semver.rcompare(versionOf(a)!, versionOf(b)!) || a.localeCompare(b));
  const others = tags.filter((t) => !versionOf(t)).sort((a, b) => a.localeCompare(b));
  return [...versions, ...others];
}
