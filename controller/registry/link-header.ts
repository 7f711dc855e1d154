/** The `rel="next"` target of a registry's Link header (`</v2/_catalog?last=x&n=100>; rel="next"`), resolved against `base`. */
export function nextLink(header: string | null, base: URL): URL | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return new URL(m[1], base);
  }
  return null;
}
