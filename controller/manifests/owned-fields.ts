// Which fields of an object a manifest owns, in the API's names: the one mapping the API's write
// check (api/http/manifest-ownership.ts) and the entrance's (reconcilers/entrance.ts) share.

/** API body fields that are named differently in manifests. */
export const MANIFEST_FIELD: Record<string, string> = { containerImageId: 'image', registryConnectionId: 'registry', privateKey: 'sshPrivateKey', serverIds: 'servers' };

export interface ManifestSource { kind?: string; path?: string; fields?: string[]; revision?: string; repository?: string; origin?: string }

/** The file that owns an object, as a 409 names it: with the commit and repository when a Git source applied it. */
export function ownerOf(source: ManifestSource): string {
  if (source.repository && source.revision) return `${source.path} (commit ${source.revision.slice(0, 12)} of ${source.repository})`;
  return source.path ?? '';
}

/** Where to make the change instead: the repository, or the manifests folder. */
export function editHint(source: ManifestSource): string {
  return source.repository ? `Edit ${source.path} in ${source.repository} and push` : `Edit ${source.path} in the manifests folder instead`;
}

/** The API keys among `keys` that the manifest in `source` sets (`prefix`: settings.<module>.); none when no manifest owns the object. */
export function ownedFields(source: ManifestSource | undefined | null, keys: string[], prefix = ''): string[] {
  if (!source || source.kind !== 'manifest' || !source.path) return [];
  const owned = new Set(source.fields ?? []);
  return keys.filter((k) => owned.has(prefix + (MANIFEST_FIELD[k] ?? k)));
}
