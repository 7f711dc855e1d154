// The one way the dashboard talks to the service: JSON over /api with the signed-in user's token.
const TOKEN_KEY = 'stevedore.token';

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly field?: string) {
    super(message);
  }
}

let token: string | null = sessionStorage.getItem(TOKEN_KEY);
const signedOutListeners = new Set<() => void>();

export const currentToken = () => token;

export function setToken(t: string | null) {
  token = t;
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

/** Called when the service refuses the token (expired, revoked): the app goes back to sign-in. */
export function onSignedOut(fn: () => void) {
  signedOutListeners.add(fn);
  return () => signedOutListeners.delete(fn);
}

export function authHeaders(): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export async function api<T = any>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, {
    method, signal,
    headers: { ...authHeaders(), ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (!res.ok) {
    if (res.status === 401 && token) {
      setToken(null);
      signedOutListeners.forEach((fn) => fn());
    }
    throw new ApiError(res.status, data?.code ?? 'ERROR', data?.message ?? res.statusText, data?.field);
  }
  return data as T;
}

export const get = <T = any>(path: string, signal?: AbortSignal) => api<T>('GET', path, undefined, signal);
export const post = <T = any>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T = any>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const put = <T = any>(path: string, body: unknown) => api<T>('PUT', path, body);

/** Every item of a paginated list (the API serves at most 200 a page): the first page, then the rest at once. */
export async function listAll<T = any>(path: string, signal?: AbortSignal): Promise<T[]> {
  const sep = path.includes('?') ? '&' : '?';
  const first = await get<{ items: T[]; total: number }>(`${path}${sep}limit=200`, signal);
  const rest = [];
  for (let offset = 200; offset < first.total; offset += 200) rest.push(get<{ items: T[] }>(`${path}${sep}limit=200&offset=${offset}`, signal));
  return [...first.items, ...(await Promise.all(rest)).flatMap((p) => p.items)];
}
