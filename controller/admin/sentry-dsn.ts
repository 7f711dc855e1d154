import { validationError } from '../errors/app-error.js';

/** A Sentry-compatible DSN: `https://<publicKey>@<host>[:port][/path]/<projectId>`. */
export interface SentryDsn {
  publicKey: string;
  /** scheme://host[:port][/path], without the key. */
  origin: string;
  projectId: string;
  /** Where events go: the store's envelope endpoint. */
  envelopeUrl: string;
}

/** Parses a DSN or throws VALIDATION_ERROR (field dsn) without echoing it: it holds a key. */
export function parseDsn(dsn: string): SentryDsn {
  let url: URL;
  try {
    url = new URL(dsn);
  } catch {
    throw validationError('dsn is not a URL', 'dsn', 'Copy the DSN from the error tracker: https://<key>@<host>/<projectId>');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw validationError('dsn must use http or https', 'dsn');
  if (!url.username) throw validationError('dsn has no public key (the part before @)', 'dsn');
  const parts = url.pathname.split('/').filter(Boolean);
  const projectId = parts.pop();
  if (!projectId || !/^[A-Za-z0-9_-]{1,64}$/.test(projectId)) throw validationError('dsn has no project id (its last path segment)', 'dsn');
  const prefix = parts.length ? `/${parts.join('/')}` : '';
  const origin = `${url.protocol}//${url.host}${prefix}`;
  return { publicKey: decodeURIComponent(url.username), origin, projectId, envelopeUrl: `${origin}/api/${projectId}/envelope/` };
}
