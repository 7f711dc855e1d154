/** What stands in for a secret value wherever one would otherwise be shown. */
export const REDACTED = '[REDACTED]';

/**
 * Replaces every secret value in a text (an error message, a tool's output) by [REDACTED],
 * longest first so a value containing another is hidden whole. Values shorter than `minLength`
 * are left alone: replacing "x" everywhere would hide the message, not the secret.
 */
export function redactSecrets(text: string, values: Iterable<string>, minLength = 1): string {
  return [...values].filter((v) => v.length >= Math.max(1, minLength)).sort((a, b) => b.length - a.length)
    .reduce((t, v) => t.split(v).join(REDACTED), text);
}

/**
 * What a read shows for a secret that is set (a masked setting, a finding's value): a fixed mask,
 * never a character of the value, nor its length. The one masking helper: a prefix "to recognise
 * the token" is a part of the secret handed to whoever may read the setting (issue 34).
 */
export const MASK = '****';

export const maskSecret = (value: string | null): string | null => (value === null ? null : MASK);
