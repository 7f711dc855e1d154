import type { Services } from '../services.js';
import type { RegistryRow } from '../store/repositories/registries.js';

export interface DockerAuth {
  username: string;
  password: string;
  serveraddress: string;
}

/** "10.0.0.1:5000/team/web" -> "10.0.0.1:5000"; Docker Hub names ("nginx", "team/web") -> null. */
export function registryHostOf(imageName: string): string | null {
  const first = imageName.split('/')[0];
  return imageName.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost') ? first : null;
}

const hostOfUrl = (url: string) => {
  try {
    return new URL(url.includes('://') ? url : `https://${url}`).host;
  } catch {
    return null;
  }
};

/**
 * Credentials for pulling `imageName`: the image's own registry connection, else the
 * environment's connection for the same registry host. They travel in the Docker API call's
 * X-Registry-Auth header only: nothing is written to the server's ~/.docker/config.json.
 */
export async function registryAuthFor(s: Pick<Services, 'registries' | 'secretBox'>, environmentId: string, imageName: string,
  registryConnectionId: string | null): Promise<DockerAuth | undefined> {
  const host = registryHostOf(imageName);
  let row: RegistryRow | undefined = registryConnectionId ? await s.registries.findById(registryConnectionId) : undefined;
  if (!row && host) {
    const candidates = await s.registries.listDefaultFirst(environmentId);
    row = candidates.find((r) => hostOfUrl(r.registryUrl) === host);
  }
  if (!row) return undefined;
  const secret = row.passwordEnc ? s.secretBox.open(row.passwordEnc) : row.tokenEnc ? s.secretBox.open(row.tokenEnc) : null;
  if (!secret) return undefined;
  return { username: row.username ?? 'token', password: secret, serveraddress: host ?? hostOfUrl(row.registryUrl) ?? row.registryUrl };
}
