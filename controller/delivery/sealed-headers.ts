import type { SecretBox } from '../crypto/secret-box.js';

/**
 * Custom headers of outgoing webhooks are write-only like every secret: stored as
 * `{name: sealed value}`, read back as `{name: {set: true}}`, opened only to send.
 */
export type SealedHeaders = Record<string, string>;

/** Seals each value; a null (a PATCH's removal) stays null. */
export const sealHeaders = (box: SecretBox, plain: Record<string, string | null>): Record<string, string | null> =>
  Object.fromEntries(Object.entries(plain).map(([name, value]) => [name, value === null ? null : box.seal(value)]));

export const openHeaders = (box: SecretBox, sealed: SealedHeaders | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(sealed ?? {}).map(([name, value]) => [name, box.open(value)]));

/** What reads show: the names, each `{set: true}`. */
export const maskHeaders = (sealed: Record<string, unknown> | null | undefined): Record<string, { set: true }> =>
  Object.fromEntries(Object.keys(sealed ?? {}).map((name) => [name, { set: true as const }]));

/**
 * A PATCH of the header map: names absent from the patch stay, a string sets (or replaces) one,
 * null removes one. Names compare without case, as HTTP's do; a replaced one takes the patch's
 * spelling. Values are whatever the caller keeps (sealed ones in the store).
 */
export function patchHeaders<V>(current: Record<string, V> | null | undefined, patch: Record<string, V | null>): Record<string, V> {
  const out: Record<string, V> = { ...(current ?? {}) };
  for (const [name, value] of Object.entries(patch)) {
    for (const k of Object.keys(out)) if (k.toLowerCase() === name.toLowerCase()) delete out[k];
    if (value !== null) out[name] = value;
  }
  return out;
}
