import type { PackageManager } from '../hosts/commands/bootstrap.js';

export interface Distribution {
  id: string;
  idLike: string[];
  versionId: string | null;
  prettyName: string | null;
  /** The distribution's package manager; null when Stevedore does not know how to install Docker there. */
  packageManager: PackageManager | null;
}

/** Parses /etc/os-release (KEY=value lines, values optionally quoted). */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2];
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1).replace(/\\(["\\$`])/g, '$1');
    out[m[1]] = v;
  }
  return out;
}

const BY_ID: Record<string, PackageManager> = {
  debian: 'apt', ubuntu: 'apt', raspbian: 'apt', linuxmint: 'apt', pop: 'apt',
  fedora: 'dnf', rhel: 'dnf', centos: 'dnf', rocky: 'dnf', almalinux: 'dnf', ol: 'dnf',
  amzn: 'yum',
  alpine: 'apk',
  opensuse: 'zypper', 'opensuse-leap': 'zypper', 'opensuse-tumbleweed': 'zypper', sles: 'zypper',
  arch: 'pacman', manjaro: 'pacman',
};

/** The distribution and its package manager, by ID first, then by each ID_LIKE. */
export function distributionOf(text: string): Distribution {
  const f = parseOsRelease(text);
  const id = (f.ID ?? 'linux').toLowerCase();
  const idLike = (f.ID_LIKE ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const packageManager = [id, ...idLike].map((x) => BY_ID[x]).find(Boolean) ?? null;
  return { id, idLike, versionId: f.VERSION_ID ?? null, prettyName: f.PRETTY_NAME ?? null, packageManager };
}
