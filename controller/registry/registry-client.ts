// A small client for the Docker Registry HTTP API v2 / OCI distribution, on Node's fetch:
// ping, catalog and tag listing (Link pagination), manifest HEAD/GET and digests. No library
// fitted (the npm ones are unmaintained or pull in a whole HTTP stack).
//
// Authentication follows the registry's challenge: the first 401 names the scheme; Basic sends
// the credentials, Bearer fetches a token from the challenge's realm for the scope asked (with
// the credentials as Basic auth when there are any). The scheme and the tokens (per scope, until
// they expire) are remembered, so an update check of many images costs one request per image.
import { parseChallenge, type Challenge } from './challenge.js';
import { nextLink } from './link-header.js';
import { httpError, RegistryError, transportError } from './registry-error.js';
import type { OutgoingGuard } from '../net/outgoing-guard.js';

export interface RegistryCredentials {
  username?: string | null;
  password?: string | null;
  /** A registry token: sent as the password when there is a username, as a bearer token when not. */
  token?: string | null;
}

export interface RegistryClientOptions extends RegistryCredentials {
  /** http(s)://host[:port] of the registry (a path after it is ignored). */
  url: string;
  timeoutMs?: number;
  /** Entries per catalog or tag page (the registry may send fewer); 100 unless set. */
  pageSize?: number;
  /** Every request (token services and redirects included) goes through it. */
  guard: OutgoingGuard;
}

export const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
] as const;

export interface ManifestRef { digest: string; mediaType: string }

export class RegistryClient {
  readonly base: URL;
  private readonly timeoutMs: number;
  private scheme: 'none' | 'basic' | 'bearer' | null = null;
  private bearerChallenge: Challenge | null = null;
  private readonly tokens = new Map<string, { token: string; until: number }>();
  /**
   * The registry closes the connection after every manifest HEAD (docker-registry 2.8 does): a new
   * TCP (and TLS) connection per digest. Once seen, digests are read by GET, which keeps it alive.
   * Registries that keep HEAD alive (Docker Hub, where only GET counts as a pull) stay on HEAD.
   */
  private headClosesConnection = false;

  constructor(private readonly opts: RegistryClientOptions) {
    const u = new URL(opts.url.includes('://') ? opts.url : `https://${opts.url}`);
    this.base = new URL(`${u.protocol}//${u.host}/`);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  get host(): string { return this.base.host; }

  /** GET /v2/: true when the registry answers and accepts the credentials (throws otherwise). */
  async ping(): Promise<true> {
    const res = await this.request(new URL('/v2/', this.base), 'GET', null);
    if (!res.ok) throw await httpError(res, `ping ${this.host}`);
    await res.body?.cancel();
    return true;
  }

  /** Every repository of the catalog (all pages), or the first `limit`. */
  async catalog(limit = Infinity): Promise<string[]> {
    return this.paged(new URL(`/v2/_catalog?n=${this.opts.pageSize ?? 100}`, this.base), 'registry:catalog:*', 'repositories', `catalog of ${this.host}`, limit);
  }

  /** Every tag of a repository (all pages), in the registry's order. */
  async tags(repository: string): Promise<string[]> {
    return this.paged(new URL(`/v2/${repository}/tags/list?n=${this.opts.pageSize ?? 100}`, this.base), pullScope(repository), 'tags', `tags of ${repository}`);
  }

  /** The digest of a tag (or digest) by HEAD; GET when the registry sends no Docker-Content-Digest on HEAD. */
  async digest(repository: string, reference: string): Promise<ManifestRef> {
    if (this.headClosesConnection) return (await this.manifest(repository, reference)).ref;
    const url = new URL(`/v2/${repository}/manifests/${reference}`, this.base);
    const head = await this.request(url, 'HEAD', pullScope(repository), { accept: MANIFEST_TYPES.join(', ') });
    if (!head.ok) throw await httpError(head, `${repository}:${reference}`);
    if (head.headers.get('connection')?.toLowerCase() === 'close') this.headClosesConnection = true;
    const digest = head.headers.get('docker-content-digest');
    if (digest) return { digest, mediaType: head.headers.get('content-type') ?? '' };
    return (await this.manifest(repository, reference)).ref;
  }

  /** The manifest itself (image manifest or index), with its digest. */
  async manifest(repository: string, reference: string): Promise<{ ref: ManifestRef; body: Record<string, unknown> }> {
    const url = new URL(`/v2/${repository}/manifests/${reference}`, this.base);
    const res = await this.request(url, 'GET', pullScope(repository), { accept: MANIFEST_TYPES.join(', ') });
    if (!res.ok) throw await httpError(res, `${repository}:${reference}`);
    const text = await res.text();
    const digest = res.headers.get('docker-content-digest') ?? `sha256:${await sha256Hex(text)}`;
    return { ref: { digest, mediaType: res.headers.get('content-type') ?? '' }, body: JSON.parse(text) as Record<string, unknown> };
  }

  private async paged(first: URL, scope: string, field: 'repositories' | 'tags', what: string, limit = Infinity): Promise<string[]> {
    const out: string[] = [];
    for (let url: URL | null = first; url && out.length < limit;) {
      const res = await this.request(url, 'GET', scope);
      if (!res.ok) throw await httpError(res, what);
      const body = await res.json() as Record<string, string[] | null>;
      out.push(...(body[field] ?? []));
      url = nextLink(res.headers.get('link'), this.base);
    }
    return out.slice(0, limit);
  }

  /** One request, answering the auth challenge once. */
  private async request(url: URL, method: 'GET' | 'HEAD', scope: string | null, headers: Record<string, string> = {}): Promise<Response> {
    const first = await this.send(url, method, { ...headers, ...(await this.authHeader(scope)) });
    if (first.status !== 401) return first;
    const challenge = parseChallenge(first.headers.get('www-authenticate'));
    await first.body?.cancel();
    if (!challenge) throw new RegistryError('unauthorized', `${this.host} refused the request (401) without saying how to authenticate`, 401);
    if (this.scheme === challenge.scheme && challenge.scheme === 'basic') return reissue(first);
    this.scheme = challenge.scheme;
    if (challenge.scheme === 'bearer') this.bearerChallenge = challenge;
    const auth = await this.authHeader(scope ?? challenge.params.scope ?? null, challenge.params.scope);
    if (!Object.keys(auth).length) {
      throw new RegistryError('unauthorized', `${this.host} asks for ${challenge.scheme === 'basic' ? 'a username and password' : 'a token'} and the connection has no credentials`, 401);
    }
    return this.send(url, method, { ...headers, ...auth });
  }

  private async authHeader(scope: string | null, challengeScope?: string): Promise<Record<string, string>> {
    const { username, password, token } = this.opts;
    if (this.scheme === 'basic') {
      const secret = password ?? token;
      return username && secret ? { authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}` } : {};
    }
    if (this.scheme === 'bearer') {
      if (!username && token) return { authorization: `Bearer ${token}` };
      return { authorization: `Bearer ${await this.bearerToken(challengeScope ?? scope)}` };
    }
    return {};
  }

  /** A token for `scope` from the challenge's realm (cached until it expires). */
  private async bearerToken(scope: string | null): Promise<string> {
    const key = scope ?? '';
    const cached = this.tokens.get(key);
    if (cached && cached.until > Date.now()) return cached.token;
    const { realm, service } = this.bearerChallenge!.params;
    if (!realm) throw new RegistryError('protocol', `${this.host} asks for a bearer token but names no realm`);
    const url = new URL(realm);
    if (service) url.searchParams.set('service', service);
    if (scope) url.searchParams.set('scope', scope);
    const { username, password, token } = this.opts;
    const secret = password ?? token;
    const headers: Record<string, string> = username && secret ? { authorization: `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}` } : {};
    const res = await this.send(url, 'GET', headers);
    if (!res.ok) {
      await res.body?.cancel();
      const why = res.status === 401 || res.status === 403 ? 'refused the credentials' : `answered ${res.status}`;
      throw new RegistryError('unauthorized', `the token service of ${this.host} (${url.host}) ${why}`, 401);
    }
    const body = await res.json() as { token?: string; access_token?: string; expires_in?: number };
    const value = body.token ?? body.access_token;
    if (!value) throw new RegistryError('protocol', `the token service of ${this.host} answered without a token`);
    // a little before the real expiry, so a token never dies in flight; 60 s is the spec's default
    this.tokens.set(key, { token: value, until: Date.now() + Math.max(0, (body.expires_in ?? 60) - 10) * 1000 });
    return value;
  }

  private async send(url: URL, method: 'GET' | 'HEAD', headers: Record<string, string>): Promise<Response> {
    try {
      return await this.opts.guard.fetch(url, { method, headers, redirect: 'follow', signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      throw transportError(e, url, this.timeoutMs);
    }
  }
}

/** Basic credentials already sent and refused: the 401 stands. */
function reissue(res: Response): Response {
  return new Response(null, { status: res.status, headers: res.headers });
}

const pullScope = (repository: string) => `repository:${repository}:pull`;

async function sha256Hex(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}
