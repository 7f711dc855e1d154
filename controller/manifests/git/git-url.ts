/** How a source's URL is reached: what credentials it can carry and whether its host key is pinned. */
export type GitTransport = 'file' | 'https' | 'http' | 'git' | 'ssh';

export interface GitRemote {
  transport: GitTransport;
  /** Host (and port) of network remotes, for messages and the ssh host key; null for file://. */
  host: string | null;
  /** The URL as git is handed it. */
  url: string;
}

// scp-like: [user@]host:path (no scheme; the path does not start with //)
const SCP_LIKE = /^(?:([A-Za-z0-9._-]+)@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(?!\/\/)(.+)$/;

/**
 * Reads a source URL: `https://` (`http://` and `git://` for repositories without credentials),
 * `ssh://` or scp-like `git@host:repo`, `file://` for a repository on the controller's machine.
 * Returns a reason instead when git must not be handed it: an option-like word, a password in
 * the URL (credentials are fields of their own, sealed), or another transport (ext::, fd::).
 */
export function parseGitUrl(raw: string): GitRemote | { problem: string } {
  const url = raw.trim();
  if (!url || url.startsWith('-') || /[\s\0]/.test(url)) return { problem: 'must be a URL without spaces, not starting with "-"' };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) {
    const scp = SCP_LIKE.exec(url);
    if (scp && !url.includes('::')) return { transport: 'ssh', host: scp[2], url };
    return { problem: 'must be https://, ssh://, git@host:repository or file://' };
  }
  if (!['file', 'https', 'http', 'git', 'ssh'].includes(scheme)) return { problem: `the ${scheme}:// transport is not supported (use https://, ssh:// or file://)` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { problem: 'is not a valid URL' };
  }
  if (parsed.password) return { problem: 'must not hold a password: send username and token (write-only) instead' };
  if (scheme === 'file') {
    if (parsed.host) return { problem: 'file:// URLs name a path on the controller: file:///srv/repo.git' };
    return { transport: 'file', host: null, url };
  }
  if (!parsed.hostname) return { problem: 'names no host' };
  return { transport: scheme as GitTransport, host: parsed.port ? `${parsed.hostname}:${parsed.port}` : parsed.hostname, url };
}

/** A branch, a tag or a full ref name: what `git fetch URL REF` takes, never an option. */
export const REF_PATTERN = '^(?!-)(?!.*\\.\\.)(?!.*//)[A-Za-z0-9._/+-]{1,200}$';
/** A folder inside the repository: relative, no `..` segment. */
export const PATH_PATTERN = '^(\\.|(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\0]{1,500})$';

/** The URL as shown in logs, events and status: any user name removed. */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}
