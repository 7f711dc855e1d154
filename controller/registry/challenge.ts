// WWW-Authenticate parsing: `Basic realm="x"` or `Bearer realm="https://auth/token",service="reg",scope="repository:a/b:pull"`.
export interface Challenge { scheme: 'basic' | 'bearer'; params: Record<string, string> }

export function parseChallenge(header: string | null): Challenge | null {
  if (!header) return null;
  const m = /^\s*(\w+)\s*(.*)$/.exec(header);
  if (!m) return null;
  const scheme = m[1].toLowerCase();
  if (scheme !== 'basic' && scheme !== 'bearer') return null;
  const params: Record<string, string> = {};
  for (const p of m[2].matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) params[p[1].toLowerCase()] = (p[2] ?? p[3]).replace(/\\(.)/g, '$1');
  return { scheme, params };
}
