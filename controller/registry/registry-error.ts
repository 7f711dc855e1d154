// Why a registry call failed, in words a user can act on. `kind` is for code (the routes map it
// to a status, the test verdict to its fields); the message never holds a credential.
import { isOutgoingRefused } from '../net/outgoing-guard.js';
export type RegistryErrorKind = 'unauthorized' | 'not-found' | 'tls' | 'timeout' | 'unreachable' | 'protocol' | 'refused';

/** The kinds where no HTTP answer came: a registry test says only "unreachable" for all of them. */
export const NO_ANSWER: RegistryErrorKind[] = ['tls', 'timeout', 'unreachable'];

export class RegistryError extends Error {
  constructor(readonly kind: RegistryErrorKind, message: string, readonly status?: number) {
    super(message);
    this.name = 'RegistryError';
  }
}

export const isRegistryError = (e: unknown): e is RegistryError => e instanceof RegistryError;

const TLS_CODES = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

/** A fetch that threw (no HTTP answer): timeout, TLS, refused or unknown host. */
export function transportError(e: unknown, url: URL, timeoutMs: number): RegistryError {
  if (isOutgoingRefused(e)) return new RegistryError('refused', `${url.host} was not contacted: ${(e as Error).message}`);
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') {
    return new RegistryError('timeout', `${url.host} did not answer within ${timeoutMs} ms`);
  }
  const code = err.cause?.code ?? '';
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(err.cause?.message ?? '')) {
    return new RegistryError('tls', `TLS handshake with ${url.host} failed (${code || err.cause?.message}): check the registry's certificate or use http:// for a plain-HTTP registry`);
  }
  return new RegistryError('unreachable', `${url.host} is unreachable (${code || err.cause?.message || err.message})`);
}

/** An HTTP answer that is not what was asked for; the registry's own error code when it gave one. */
export async function httpError(res: Response, what: string): Promise<RegistryError> {
  let code = '';
  try {
    const body = await res.json() as { errors?: Array<{ code?: string; message?: string }> };
    code = body.errors?.[0]?.code ?? '';
  } catch { /* not JSON */ }
  if (res.status === 401) return new RegistryError('unauthorized', `${what}: the registry refused the credentials (401${code ? ` ${code}` : ''})`, 401);
  if (res.status === 403) return new RegistryError('unauthorized', `${what}: access denied (403${code ? ` ${code}` : ''})`, 403);
  if (res.status === 404) {
    const why = code === 'NAME_UNKNOWN' ? 'unknown repository' : code === 'MANIFEST_UNKNOWN' ? 'unknown tag or digest' : 'not found';
    return new RegistryError('not-found', `${what}: ${why} (404${code ? ` ${code}` : ''})`, 404);
  }
  return new RegistryError('protocol', `${what}: the registry answered ${res.status}${code ? ` ${code}` : ''}`, res.status);
}
