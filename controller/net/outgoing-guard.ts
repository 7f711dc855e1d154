// Where the controller's own outgoing connections to operator-set addresses may go (webhooks,
// chat channels, registries, the object storage, Git remotes, SMTP, the error tracker, external
// databases' TCP checks): never to the controller's loopback, link-local
// addresses (cloud metadata at 169.254.169.254), "this host" (0.0.0.0/8, ::) or any address of
// its own interfaces, unless the admin's allow-list (system setting `outgoingAllowList`, default
// OUTGOING_ALLOW_LIST) names the host or a CIDR holding the address, for a local relay on purpose.
//
// The pure part classifies addresses and reads allow-lists (unit-tested); OutgoingGuard applies
// them after DNS resolution, to every address a name resolves to, through the `lookup` its
// connections use (so the address checked is the address connected to) and to IP literals
// before connecting; `fetch` follows redirects itself, checking each hop; `connect` is the same for
// a raw TCP socket. Every such connection goes through here (test/unit/net/outgoing-entrances.test.ts).
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import { Readable } from 'node:stream';
import { validationError } from '../errors/app-error.js';

/** Why an address is not a destination, or null when it may be one. */
export type ForbiddenReason = 'loopback' | 'link-local' | 'unspecified' | 'own address';

/** An address as 4 or 16 bytes; an IPv4-mapped IPv6 address (::ffff:a.b.c.d, any spelling) as its IPv4. */
export function addressBytes(ip: string): number[] | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (net.isIPv4(bare)) return bare.split('.').map(Number);
  if (!net.isIPv6(bare)) return null;
  let text = bare.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1].split('.').map(Number));
    text = text.slice(0, -dotted[1].length) + '0:0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const groups = (s: string) => (s ? s.split(':') : []);
  const h = groups(head);
  const r = rest === null ? [] : groups(rest);
  const words = [...h, ...Array(8 - h.length - r.length).fill('0'), ...r].map((g) => parseInt(g, 16));
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

const inPrefix = (bytes: number[], prefix: number[], bits: number) => {
  if (bytes.length !== prefix.length) return false;
  for (let i = 0; i < bits; i++) {
    const bit = (b: number[]) => (b[i >> 3] >> (7 - (i & 7))) & 1;
    if (bit(bytes) !== bit(prefix)) return false;
  }
  return true;
};

/** Whether `ip` is forbidden as a destination: loopback, link-local, unspecified, or one of `own`. */
export function forbiddenReason(ip: string, own: string[] = []): ForbiddenReason | null {
  const b = addressBytes(ip);
  if (!b) return null;
  if (b.length === 4) {
    if (b[0] === 127) return 'loopback';
    if (b[0] === 0) return 'unspecified';
    if (b[0] === 169 && b[1] === 254) return 'link-local';
  } else {
    if (b.every((x, i) => x === (i === 15 ? 1 : 0))) return 'loopback';
    if (b.every((x) => x === 0)) return 'unspecified';
    if (inPrefix(b, [0xfe, 0x80, ...Array(14).fill(0)], 10)) return 'link-local';
  }
  const key = b.join('.');
  return own.some((o) => addressBytes(o)?.join('.') === key) ? 'own address' : null;
}

/** One allow-list entry: a host name (exact, without case), an address, or a CIDR. */
export type AllowRule = { host: string } | { net: number[]; bits: number };

/** An allow-list entry as a rule, or null when it is none of a host name, an address or a CIDR. */
export function parseAllowEntry(entry: string): AllowRule | null {
  const text = entry.trim().toLowerCase();
  const [addr, len, extra] = text.split('/');
  const bytes = addressBytes(addr);
  if (bytes && extra === undefined) {
    const max = bytes.length * 8;
    // an IPv4-mapped CIDR counts in IPv4 bits
    const bits = len === undefined ? max : Number(len) - (net.isIPv6(addr) && bytes.length === 4 ? 96 : 0);
    if (len !== undefined && !/^\d{1,3}$/.test(len)) return null;
    return Number.isInteger(bits) && bits >= 0 && bits <= max ? { net: bytes, bits } : null;
  }
  const host = text.replace(/\.$/, '');
  return len === undefined && /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?)*$/.test(host) ? { host } : null;
}

/** Whether the allow-list lets `host` (the URL's) resolving to `ip` through. */
export function allowedBy(rules: AllowRule[], host: string, ip: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const bytes = addressBytes(ip);
  return rules.some((r) => ('host' in r ? r.host === name : !!bytes && inPrefix(bytes, r.net, r.bits)));
}

const REASON_TEXT: Record<ForbiddenReason, string> = {
  loopback: 'a loopback address', 'link-local': 'a link-local address', unspecified: 'an unspecified address',
  'own address': 'an own address of the controller',
};

/** The verdict on one destination: null when every address may be reached, else why not. */
export function refusalOf(host: string, addresses: string[], rules: AllowRule[], own: string[]): string | null {
  for (const ip of addresses) {
    const reason = forbiddenReason(ip, own);
    if (reason && !allowedBy(rules, host, ip)) return `${host} resolves to ${REASON_TEXT[reason]} (${ip})`;
  }
  return null;
}

/** A request to an address the guard does not let through. Says why, names no port. */
export class OutgoingRefused extends Error {
  readonly code = 'OUTGOING_REFUSED';
  constructor(readonly reason: string) {
    super(`refused: ${reason}; an admin may allow it in the system setting outgoingAllowList`);
    this.name = 'OutgoingRefused';
  }
}

export const isOutgoingRefused = (e: unknown): e is OutgoingRefused => {
  for (let cur = e, depth = 0; cur && depth < 4; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof OutgoingRefused) return true;
  }
  return false;
};

/** The addresses of this host's interfaces (what "the controller's own addresses" are). */
export const ownAddresses = (): string[] =>
  Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | null;
  signal?: AbortSignal;
  /** 'follow': redirects are followed here, each hop checked (at most 5); 'manual': a 3xx is the answer. */
  redirect?: 'follow' | 'manual';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);
const MAX_REDIRECTS = 5;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

export class OutgoingGuard {
  /** The allow-list last read: it stands while a read fails (the controller's database is away). */
  private lastList: string[] | null = null;

  constructor(private readonly allowList: () => Promise<string[]>, private readonly own: () => string[] = ownAddresses) {}

  private async rules(): Promise<AllowRule[]> {
    // a delivery during a database outage is not refused for want of the list it was allowed by
    const list = await this.allowList().then((l) => (this.lastList = l), (e: unknown) => {
      if (this.lastList === null) throw e;
      return this.lastList;
    });
    return list.map(parseAllowEntry).filter((r): r is AllowRule => r !== null);
  }

  /**
   * Throws OutgoingRefused when the URL's host is, or resolves to, an address it may not reach.
   * A name that does not resolve is let through here (the connection's lookup fails anyway).
   */
  async check(url: string | URL): Promise<void> {
    await this.checkHost(new URL(url).hostname);
  }

  /** check() for a bare host name or address (an SMTP server's, a database's). */
  async checkHost(hostname: string): Promise<void> {
    const host = hostname.replace(/^\[|\]$/g, '');
    const addresses = net.isIP(host) ? [host] : await dns.promises.lookup(host, { all: true }).then((a) => a.map((x) => x.address), () => []);
    const refusal = refusalOf(host, addresses, await this.rules(), this.own());
    if (refusal) throw new OutgoingRefused(refusal);
  }

  /**
   * A write's check of a URL an operator sets: 400 VALIDATION_ERROR on `field` when it aims at
   * an address the guard refuses (senders check again at every connection: DNS may change).
   * A URL without a scheme (a registry's host:port) is read as https.
   */
  async validate(url: string, field: string): Promise<void> {
    let host: string;
    try {
      host = new URL(url.includes('://') ? url : `https://${url}`).hostname;
    } catch {
      return; // not a URL: the body schema says so
    }
    await this.validateHost(host, field);
  }

  /** validate() for a bare host name or address. */
  async validateHost(host: string, field: string): Promise<void> {
    try {
      await this.checkHost(host);
    } catch (e) {
      if (isOutgoingRefused(e)) throw validationError(`${field}: ${e.message}`, field, 'Outgoing requests may not aim at loopback, link-local or the controller\'s own addresses');
      throw e;
    }
  }

  /**
   * A `lookup` for sockets (http.Agent, net.connect): resolves, refuses when any address is one
   * the guard forbids, and connects only to the addresses it checked.
   */
  readonly lookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    Promise.all([dns.promises.lookup(hostname, { ...options, all: true }), this.rules()]).then(([addresses, rules]) => {
      const refusal = refusalOf(hostname, addresses.map((a) => a.address), rules, this.own());
      if (refusal) return callback(new OutgoingRefused(refusal), options.all ? [] : '', 0);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    }, (err) => callback(err, options.all ? [] : '', 0));
  };

  /**
   * fetch()'s contract over node:http, every connection through the guard: the URL's host
   * checked first (IP literals never reach a lookup), names resolved by `lookup`, and redirects
   * followed here hop by hop. Network failures reject like fetch (`TypeError` with the socket
   * error as `cause`); a refused destination rejects with OutgoingRefused.
   */
  async fetch(url: string | URL, init: GuardedRequest = {}): Promise<Response> {
    let current = new URL(url);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? null;
    let headers = { ...(init.headers ?? {}) };
    for (let hop = 0; ; hop++) {
      await this.check(current);
      const res = await this.once(current, method, headers, body, init.signal);
      const location = res.headers.get('location');
      if (init.redirect !== 'follow' || !REDIRECTS.has(res.status) || !location) return res;
      await res.body?.cancel().catch(() => {});
      if (hop === MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error(`more than ${MAX_REDIRECTS} redirects`) });
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`redirect to ${next.protocol}`) });
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = null;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
      }
      // as fetch: credentials do not follow a redirect to another origin
      if (next.origin !== current.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|cookie)$/i.test(k)));
      current = next;
    }
  }

  private once(url: URL, method: string, headers: Record<string, string>, body: string | Buffer | null, signal?: AbortSignal): Promise<Response> {
    const transport = url.protocol === 'https:' ? https : http;
    // a length, as fetch sends: some receivers refuse a chunked POST
    const sent = body !== null && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')
      ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers;
    return new Promise<Response>((resolve, reject) => {
      const req = transport.request(url, { method, headers: sent, signal, lookup: this.lookup as never }, (res) => {
        const out = new Headers();
        for (let i = 0; i < res.rawHeaders.length; i += 2) out.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          return reject(new TypeError('fetch failed', { cause: new Error(`invalid HTTP status ${status}`) }));
        }
        if (method === 'HEAD' || NULL_BODY.has(status)) {
          res.resume();
          resolve(new Response(null, { status, statusText: res.statusMessage, headers: out }));
        } else {
          resolve(new Response(Readable.toWeb(res) as ReadableStream, { status, statusText: res.statusMessage, headers: out }));
        }
      });
      req.on('error', (err) => reject(isOutgoingRefused(err) ? err : Object.assign(new TypeError('fetch failed', { cause: err }),
        err.name === 'AbortError' && signal?.reason instanceof Error ? { name: signal.reason.name } : {})));
      req.end(body ?? undefined);
    });
  }

  /**
   * A TCP connection to host:port through the guard (an IP literal checked first, a name resolved
   * by `lookup`): resolves once connected; rejects with OutgoingRefused, the socket's error, or a
   * timeout. For clients that take a socket (nodemailer's getSocket) and plain reachability checks.
   */
  async connect(host: string, port: number, timeoutMs: number): Promise<net.Socket> {
    const bare = host.replace(/^\[|\]$/g, '');
    if (net.isIP(bare)) await this.checkHost(bare);
    return new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect({ host: bare, port, lookup: this.lookup as never, timeout: timeoutMs });
      const fail = (err: Error) => { socket.destroy(); reject(err); };
      socket.once('connect', () => { socket.setTimeout(0); resolve(socket); });
      socket.once('timeout', () => fail(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { name: 'TimeoutError' })));
      socket.once('error', fail);
    });
  }

  /** Agents for clients that take one (the S3 SDK): their connections resolve through `lookup`. */
  agents(): { httpAgent: http.Agent; httpsAgent: https.Agent } {
    return { httpAgent: new http.Agent({ keepAlive: true, lookup: this.lookup as never }), httpsAgent: new https.Agent({ keepAlive: true, lookup: this.lookup as never }) };
  }
}
