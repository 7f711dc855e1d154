// Where ${KEY} placeholders of a service's env come from: the environment's vars and secrets, read
// through the config module so there is one definition of how they are stored and decrypted.
import type { ConfigCatalog } from '../config-files/config-catalog.js';
import type { EnvSources } from './compose/render-env.js';

export async function loadEnvSources(catalog: ConfigCatalog, environmentId: string): Promise<EnvSources> {
  const ctx = await catalog.renderContext(environmentId, true);
  return {
    vars: Object.fromEntries(ctx.vars),
    secrets: Object.fromEntries([...ctx.secrets].map(([key, secret]) => [key, secret.reveal()])),
  };
}
