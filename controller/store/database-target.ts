// A DATABASE_URL with a libpq-style host list, e.g.
//   postgres://u:p@db1:5432,db2:5432/stevedore?target_session_attrs=read-write
// node-postgres connects to one host only and does not read target_session_attrs, so every
// connection of the controller (knex's pool, the hot pool, LISTEN and lock sessions) is made by
// the client class below: it connects to the host that accepts writes, trying each in order, and
// forgets that host as soon as one of its connections fails or is refused a write (SQLSTATE
// 25006), so the next connection looks again. That is how the controller follows a PostgreSQL
// failover to a promoted standby without a proxy in front (docs/replicas.md).
import pg from 'pg';

export interface DatabaseHost { host: string; port: number }

/** libpq's target_session_attrs values the controller understands. */
export type SessionAttrs = 'any' | 'read-write' | 'primary';

export interface ParsedDatabaseUrl {
  hosts: DatabaseHost[];
  sessionAttrs: SessionAttrs;
  /** The URL naming only the host at `index` (without target_session_attrs), for node-postgres. */
  urlFor(index: number): string;
}

/** A DATABASE_URL that cannot be used; the message never repeats the URL (it holds the password). */
export class DatabaseUrlError extends Error {}

const SESSION_ATTRS: readonly string[] = ['any', 'read-write', 'primary'];

/**
 * Splits a postgres:// URL's host list. A URL with one host and no target_session_attrs comes back
 * unchanged from urlFor(0). Anything else than a postgres:// URL (node-postgres reads a few
 * other forms) is passed through as one host.
 */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  const m = /^(postgres(?:ql)?:\/\/)([^/?#]*)(\/[^?#]*)?(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return { hosts: [{ host: '', port: 5432 }], sessionAttrs: 'any', urlFor: () => url };
  const [, scheme, authority, path = '', query = ''] = m;
  const at = authority!.lastIndexOf('@');
  const userinfo = at >= 0 ? authority!.slice(0, at + 1) : '';
  const hostList = at >= 0 ? authority!.slice(at + 1) : authority!;
  const params = new URLSearchParams(query.slice(1));
  const attrs = params.get('target_session_attrs') ?? 'any';
  if (!SESSION_ATTRS.includes(attrs)) {
    throw new DatabaseUrlError(`DATABASE_URL: target_session_attrs=${attrs} is not supported (use ${SESSION_ATTRS.join(', ')})`);
  }
  // one host (or none: a socket directory in ?host=) and nothing asked of it: node-postgres reads it as always
  if (!hostList.includes(',') && !params.has('target_session_attrs')) {
    const one = /^[^:[\]]+(:\d{1,5})?$/.test(hostList) ? parseHost(hostList, 0) : { host: '', port: 5432 };
    return { hosts: [one], sessionAttrs: 'any', urlFor: () => url };
  }
  const hosts = hostList.split(',').map(parseHost);
  params.delete('target_session_attrs');
  const rest = params.toString();
  return {
    hosts,
    sessionAttrs: attrs as SessionAttrs,
    urlFor: (i) => {
      const h = hosts[i]!;
      const host = h.host.includes(':') ? `[${h.host}]` : h.host;
      return `${scheme}${userinfo}${host}:${h.port}${path}${rest ? `?${rest}` : ''}`;
    },
  };
}

function parseHost(part: string, index: number): DatabaseHost {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/i.exec(part);
  const port = m?.[3] === undefined ? 5432 : Number(m[3]);
  if (!m || port < 1 || port > 65535) throw new DatabaseUrlError(`DATABASE_URL: host ${index + 1} of its host list ("${part}") is not host[:port]`);
  return { host: decodeURIComponent(m[1] ?? m[2]!), port };
}

/** No host of the list accepted a connection that can write; SQLSTATE 08001 as libpq reports it. */
export class NoWritableHostError extends Error {
  readonly code = '08001';
}

/** SQLSTATE of a write refused by a read-only session (a standby, or a primary fenced read-only). */
export const READ_ONLY_SQL_TRANSACTION = '25006';

/** How long a probe connection may take before the next host is tried. */
const PROBE_TIMEOUT_MS = 5000;

/** The hosts of one DATABASE_URL and which of them last accepted writes, shared by all its connections. */
export class DatabaseTarget {
  readonly parsed: ParsedDatabaseUrl;
  private current: number | null = null;
  /** Where the next probe starts: the host that wrote last, so a recovered old primary is not preferred. */
  private lastGood: number | null = null;
  private resolving: Promise<number> | null = null;

  constructor(url: string) {
    this.parsed = parseDatabaseUrl(url);
  }

  /** Whether connections need choosing among hosts (otherwise node-postgres connects as always). */
  get choosesHost(): boolean {
    return this.parsed.hosts.length > 1 || this.parsed.sessionAttrs !== 'any';
  }

  /** The index of the host to connect to: the last known good one, else the first that passes a probe. */
  host(): Promise<number> {
    if (this.current !== null) return Promise.resolve(this.current);
    this.resolving ??= this.probe().finally(() => {
      this.resolving = null;
    });
    return this.resolving;
  }

  /** A connection to host `index` failed or turned read-only: the next connection looks again. */
  forget(index: number): void {
    if (this.current === index) this.current = null;
  }

  /** Whether an open session on a host is the kind target_session_attrs asks for. */
  async suits(client: pg.Client): Promise<boolean> {
    if (this.parsed.sessionAttrs === 'any') return true;
    const { rows } = await client.query<{ ro: string; recovery: boolean }>(
      "SELECT current_setting('transaction_read_only') AS ro, pg_is_in_recovery() AS recovery");
    return this.parsed.sessionAttrs === 'primary' ? rows[0]!.recovery === false : rows[0]!.ro === 'off';
  }

  private async probe(): Promise<number> {
    const { hosts } = this.parsed;
    const start = this.lastGood ?? 0;
    const why: string[] = [];
    for (let k = 0; k < hosts.length; k++) {
      const i = (start + k) % hosts.length;
      const client = new pg.Client({ connectionString: this.parsed.urlFor(i), connectionTimeoutMillis: PROBE_TIMEOUT_MS });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (await this.suits(client)) {
          this.current = this.lastGood = i;
          return i;
        }
        why.push(`${label(hosts[i]!)}: ${this.parsed.sessionAttrs === 'primary' ? 'a standby' : 'read-only'}`);
      } catch (e) {
        why.push(`${label(hosts[i]!)}: ${e instanceof Error ? e.message || (e as { code?: string }).code : String(e)}`);
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw new NoWritableHostError(`no host of DATABASE_URL accepts a ${this.parsed.sessionAttrs} session (${why.join('; ')})`);
  }
}

const label = (h: DatabaseHost) => `${h.host}:${h.port}`;

const targets = new Map<string, DatabaseTarget>();

/** The one DatabaseTarget of `url` in this process (the host that writes is learned once for all). */
export function databaseTarget(url: string): DatabaseTarget {
  let t = targets.get(url);
  if (!t) {
    t = new DatabaseTarget(url);
    targets.set(url, t);
  }
  return t;
}

type ClientClass = typeof pg.Client;

/**
 * The pg.Client class to connect to `url` with: pg.Client itself for one host, else a subclass
 * whose connect() goes to the target's current host, checks the session is what
 * target_session_attrs asks for, and tells the target when the connection fails or a write is
 * refused as read-only (that connection is closed: the pools replace it).
 */
export function clientClassFor(url: string): ClientClass {
  const target = databaseTarget(url);
  if (!target.choosesHost) return pg.Client;
  class HostListClient extends pg.Client {
    constructor(config: pg.ClientConfig = {}) {
      super({ ...config, connectionString: target.parsed.urlFor(0) });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: unknown): Promise<pg.Client> | void {
      const done = this.connectToTarget().then(() => this);
      if (typeof callback !== 'function') return done;
      done.then((c) => callback(null, c), (e: Error) => callback(e));
    }

    private async connectToTarget(): Promise<void> {
      const i = await target.host();
      const h = target.parsed.hosts[i]!;
      const self = this as unknown as { host: string; port: number; connectionParameters: { host: string; port: number } };
      self.host = self.connectionParameters.host = h.host;
      self.port = self.connectionParameters.port = h.port;
      this.on('error', () => target.forget(i));
      try {
        await super.connect();
        if (!(await target.suits(this))) {
          throw new NoWritableHostError(`${label(h)} no longer accepts a ${target.parsed.sessionAttrs} session`);
        }
      } catch (e) {
        target.forget(i);
        await this.end().catch(() => undefined);
        throw e;
      }
      const connection = (this as unknown as { connection: NodeJS.EventEmitter }).connection;
      connection.on('errorMessage', (msg: { code?: string }) => {
        if (msg.code !== READ_ONLY_SQL_TRANSACTION) return;
        target.forget(i);
        // after the failing query has its error: the pools then drop this connection
        setImmediate(() => this.end().catch(() => undefined));
      });
    }
  }
  return HostListClient as unknown as ClientClass;
}
