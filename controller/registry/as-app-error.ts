import { AppError, serviceUnavailable } from '../errors/app-error.js';
import { isRegistryError } from './registry-error.js';

const HINTS: Record<string, string> = {
  unauthorized: 'Check the username and password or token of the registry connection',
  tls: 'Check the registry certificate, or use http:// in registryUrl for a plain-HTTP registry',
  timeout: 'Check that the registry is up and reachable from the controller',
  unreachable: 'Check registryUrl and that the registry is reachable from the controller',
  refused: 'Change registryUrl, or allow the host in the system setting outgoingAllowList',
};

/** A registry failure in the API's envelope: 404 for an unknown repository or tag, 503 otherwise (the message says why). */
export function asAppError(e: unknown): unknown {
  if (!isRegistryError(e)) return e;
  if (e.kind === 'not-found') return new AppError('NOT_FOUND', e.message);
  if (e.kind === 'refused') return new AppError('CONFLICT', e.message, { hint: HINTS.refused });
  return serviceUnavailable(e.message, HINTS[e.kind]);
}

export async function fromRegistry<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw asAppError(e);
  }
}
