// What a manifest may make the controller read, decided by where the manifest comes from
// (docs/security.md, "Manifests are data"). The one home of this rule: ${env:NAME} expansion
// (load.ts), valueFrom (desired.ts) and valueFrom.secretRef all ask here, and every entrance
// (the folder watcher, POST /api/manifests/apply and /diff, each Git source's sync and diff)
// reaches them through run-apply.ts, which names the origin.

/**
 * - `folder`: MANIFESTS_DIR, read by the controller itself. Its author already has the
 *   controller's machine: it may read the controller's environment and files.
 * - `api`: files sent to POST /api/manifests/apply or /diff (the CLI's `apply -f`).
 * - `git`: an environment's Git source; every committer of the repository is its author.
 * The last two are data: they name the controller's nothing.
 */
export type ManifestOrigin = 'folder' | 'api' | 'git';

/** Whether manifests of this origin may read the controller's own environment variables and files. */
export const mayReadController = (origin: ManifestOrigin): boolean => origin === 'folder';

const whose: Record<Exclude<ManifestOrigin, 'folder'>, string> = {
  api: 'manifests sent to the API',
  git: 'manifests from a Git source',
};

/** Where secrets come from instead, for the messages. */
const INSTEAD = 'take the value from a Secret of the environment with valueFrom: {secretRef: NAME}'
  + ' (or, in a Git source, a SOPS-encrypted *.sops.yaml file)';

/**
 * Why a `${env:NAME}` reference is refused for this origin, or null when it may be expanded.
 * The reference is reported where it is, and never expanded.
 */
export function envReferenceRefusal(origin: ManifestOrigin, name: string): string | null {
  if (mayReadController(origin)) return null;
  return `\${env:${name}}: ${whose[origin as 'api' | 'git']} cannot read the controller's environment variables `
    + `(only the watched MANIFESTS_DIR folder can); write the value itself, or for a secret ${INSTEAD}`;
}

/** A valueFrom mapping as manifests write it (exactly one key). */
export interface ValueFrom { env?: string; file?: string; sops?: string; secretRef?: string }

/** Why a valueFrom is refused for this origin, or null when it may be read. */
export function valueFromRefusal(origin: ManifestOrigin, ref: ValueFrom): string | null {
  if (mayReadController(origin)) return null;
  if (ref.env !== undefined) {
    return `valueFrom.env: ${whose[origin as 'api' | 'git']} cannot read the controller's environment variables `
      + `(only the watched MANIFESTS_DIR folder can); ${INSTEAD}`;
  }
  if (ref.file !== undefined) {
    return `valueFrom.file: ${whose[origin as 'api' | 'git']} cannot read files on the controller's machine `
      + `(only the watched MANIFESTS_DIR folder can); ${INSTEAD}`;
  }
  return null;
}

/**
 * The environment whose Secrets a manifest's `valueFrom: {secretRef}` reads: its own (an
 * Environment manifest's is itself). Never another's: a name is looked up there only.
 */
export const secretRefEnvironment = (m: { kind: string; metadata: { name: string; environment?: string } }): string | undefined =>
  (m.kind === 'Environment' ? m.metadata.name : m.metadata.environment);

export const secretRefMissing = (name: string, environment: string | undefined) => (environment === undefined
  ? `valueFrom.secretRef: ${name} names a Secret of the manifest's environment, and this manifest has none`
  : `valueFrom.secretRef: there is no Secret ${name} in environment ${environment} (a secretRef reads only a Secret of the manifest's own environment)`);

/**
 * Why a manifest may not make a server the controller's own machine (`dockerMode: socket`, or an
 * Environment's `defaultDockerMode: socket`), or null. Over the API that needs an unrestricted
 * admin (controller/auth/policy.ts, through the manifests route's reach); a Git source's commits
 * are applied with no caller to check, and whoever may push must not get the controller's Docker.
 */
export function controllerHostRefusal(origin: ManifestOrigin, kind: string, fields: Record<string, unknown>): string | null {
  if (origin !== 'git') return null;
  const socket = (kind === 'Server' && fields.dockerMode === 'socket')
    || (kind === 'Environment' && JSON.stringify(fields).includes('"defaultDockerMode":"socket"'));
  return socket
    ? `dockerMode: socket makes a server of the controller's own machine; ${whose.git} cannot ask for it (an unrestricted admin sets it through the API)`
    : null;
}
