import type { Services } from '../services.js';
import type { RegistryRow } from '../store/repositories/registries.js';
import { RegistryClient } from './registry-client.js';

/**
 * A client for a registry connection, credentials opened from the store. One per connection and
 * process, so the auth scheme and bearer tokens learnt are reused; a changed row (generation,
 * credentials) gets a fresh one.
 */
const clients = new Map<string, { key: string; client: RegistryClient }>();

export function clientFor(s: Services, row: RegistryRow): RegistryClient {
  const key = `${row.generation}:${row.registryUrl}:${row.username}:${row.passwordEnc}:${row.tokenEnc}`;
  const hit = clients.get(row.id);
  if (hit?.key === key) return hit.client;
  const creds = s.registries.credentialsOf(row, (sealed) => s.secretBox.open(sealed));
  const client = new RegistryClient({ url: row.registryUrl, ...creds, guard: s.outgoing });
  clients.set(row.id, { key, client });
  return client;
}
