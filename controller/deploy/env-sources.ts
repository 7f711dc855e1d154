// Where ${KEY} placeholders of a service's env come from: the environment's vars and secrets, read
// through the config module so there is one definition of how they are stored and decrypted.
import type { ConfigCatalog } from '../config-files/config-catalog.js';
import type { EnvSources } from './compose/render-env.js';

export function loadEnvSources(catalog: ConfigCatalog, environmentId: string): Promise<EnvSources> {
  return catalog.envSources(environmentId);
}
