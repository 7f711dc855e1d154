import { readManifestDir } from '../../controller/manifests/read-dir.js';
import type { ManifestFile } from '../../controller/manifests/types.js';

/** The example folder, read as the CLI sends it. */
export const exampleFiles = (): Promise<ManifestFile[]> => readManifestDir(new URL('../../examples/manifests', import.meta.url).pathname);

/** Replaces text in one file of a folder (returns a new list). */
export const edit = (files: ManifestFile[], path: string, from: string | RegExp, to: string): ManifestFile[] =>
  files.map((f) => (f.path === path ? { ...f, content: f.content.replace(from, to) } : f));

/**
 * A folder written for MANIFESTS_DIR, as an API client must send it (controller/manifests/reference-policy.ts):
 * each `${env:NAME}` written out from `values` (as a pipeline's envsubst would, before sending),
 * and each `valueFrom: {env: NAME}` turned into `valueFrom: {secretRef: NAME}`, a Secret of the
 * same key the test stores in the environment first (seedSecrets).
 */
export const forApi = (files: ManifestFile[], values: Record<string, string>): ManifestFile[] => files.map((f) => ({
  ...f,
  content: f.content
    .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      if (values[name] === undefined) throw new Error(`forApi: no value for \${env:${name}} in ${f.path}`);
      return values[name];
    })
    .replace(/valueFrom: \{env: ([A-Za-z_][A-Za-z0-9_]*)\}/g, 'valueFrom: {secretRef: $1}'),
}));

/** Makes the environment (unless it exists) and stores each value as a Secret of that key; answers the environment's id. */
export async function seedSecrets(admin: { get(p: string): Promise<any>; post(p: string, b: unknown): Promise<any> }, environment: string, secrets: Record<string, string>): Promise<string> {
  let env = (await admin.get('/api/environments')).body.items.find((e: { name: string }) => e.name === environment);
  if (!env) {
    const made = await admin.post('/api/environments', { name: environment });
    if (made.status !== 201) throw new Error(`seedSecrets: environment ${environment}: ${made.status} ${made.text}`);
    env = made.body;
  }
  for (const [key, value] of Object.entries(secrets)) {
    const res = await admin.post(`/api/environments/${env.id}/secrets`, { key, value });
    if (res.status !== 201) throw new Error(`seedSecrets: ${key}: ${res.status} ${res.text}`);
  }
  return env.id;
}
