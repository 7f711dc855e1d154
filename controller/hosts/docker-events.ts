// Docker events of Stevedore's containers, one long-lived stream per server over the pooled
// connection (a streamlocal channel in ssh mode, the socket in socket mode). An event only says
// "look again at this deployment"; a lost stream is reopened with backoff, and every (re)opening
// says "look again at everything on this server", since events of the outage were missed.
import type Docker from 'dockerode';
import type { Logger } from '../logger.js';
import { AppError } from '../errors/app-error.js';
import { concurrencyLimit } from '../queue/concurrency-limit.js';

/** What happens to a container that can make it differ from what is desired (or match again). */
export const CONTAINER_EVENT_ACTIONS = ['die', 'stop', 'kill', 'oom', 'destroy', 'start', 'health_status'] as const;

/** The Docker API `filters` of the watch: managed containers, the actions above. */
export function containerEventFilters(): Record<string, string[]> {
  return { type: ['container'], label: ['stevedore.managed=true'], event: [...CONTAINER_EVENT_ACTIONS] };
}

export interface ContainerEvent {
  serverId: string;
  /** "die", "stop", … ("health_status: unhealthy" comes as it is). */
  action: string;
  containerId: string;
  containerName: string | null;
  /** The container's stevedore.deployment-id label. */
  deploymentId: string | null;
}

export interface DockerEventWatchOptions {
  docker: (serverId: string) => Promise<Docker>;
  onEvent: (event: ContainerEvent) => void;
  /** The stream is open (first time or again): whatever happened meanwhile was not seen. */
  onConnected: (serverId: string) => void;
  /** The stream is open again after it was lost (/metrics counts these). */
  onReconnected?: (serverId: string) => void;
  logger: Logger;
  /**
   * Streams that may be connecting at once (default: no limit). Every server's watch starts
   * together at start-up: 10,000 connects at once overflow a listen backlog (EAGAIN) or start
   * 10,000 SSH handshakes together.
   */
  connectsAtOnce?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

interface DockerEventMessage {
  Type?: string;
  Action?: string;
  id?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
}

/** Parses the newline-delimited JSON of the events stream; keeps an incomplete last line. */
export function eventLineSplitter(onMessage: (m: DockerEventMessage) => void): (chunk: Buffer | string) => void {
  let rest = '';
  return (chunk) => {
    rest += chunk.toString();
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        onMessage(JSON.parse(line) as DockerEventMessage);
      } catch {
        // a line that is not JSON carries nothing we could act on; the resync covers it
      }
    }
  };
}

export function toContainerEvent(serverId: string, m: DockerEventMessage): ContainerEvent | null {
  const containerId = m.Actor?.ID ?? m.id;
  if (m.Type !== 'container' || !containerId || !m.Action) return null;
  const attrs = m.Actor?.Attributes ?? {};
  return { serverId, action: m.Action, containerId, containerName: attrs.name ?? null, deploymentId: attrs['stevedore.deployment-id'] ?? null };
}

/** The server was deleted: nothing left to watch. (Anything else may heal: retry quietly.) */
const isGone = (err: unknown) => err instanceof AppError && err.status === 404;

/** One server's watch: open, read, and on any loss reopen with exponential backoff. */
class ServerWatch {
  private stream: NodeJS.ReadableStream & { destroy?: () => void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Failed attempts of the current outage (0: connected, or never tried). */
  private failures = 0;
  private lostAt: number | null = null;
  connected = false;

  constructor(readonly serverId: string, private readonly o: Required<Omit<DockerEventWatchOptions, 'connectsAtOnce'>>,
    private readonly connecting: <T>(fn: () => Promise<T>) => Promise<T>, private readonly onGone: () => void) {}

  start(): void {
    void this.open();
  }

  stop(): void {
    this.stopped = true;
    this.connected = false;
    if (this.timer) clearTimeout(this.timer);
    this.stream?.destroy?.();
    this.stream = null;
  }

  private async open(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    let stream: NodeJS.ReadableStream & { destroy?: () => void };
    try {
      const docker = await this.o.docker(this.serverId);
      stream = await this.connecting(() => docker.getEvents({ filters: containerEventFilters() })) as typeof stream;
    } catch (err) {
      if (this.stopped) return;
      if (isGone(err)) {
        this.o.logger.info('docker events watch ended', { serverId: this.serverId, reason: (err as Error).message });
        this.stop();
        this.onGone();
        return;
      }
      return this.retry(err);
    }
    if (this.stopped) {
      stream.destroy?.();
      return;
    }
    this.stream = stream;
    this.connected = true;
    this.o.logger.debug('docker events watch open', { serverId: this.serverId });
    if (this.lostAt !== null) {
      this.o.logger.info('docker events watch restored', { serverId: this.serverId, attempts: this.failures, downMs: Date.now() - this.lostAt });
      this.o.onReconnected?.(this.serverId);
    }
    this.failures = 0;
    this.lostAt = null;
    const split = eventLineSplitter((m) => {
      const event = toContainerEvent(this.serverId, m);
      if (event) this.o.onEvent(event);
    });
    let ended = false;
    const lost = (err?: Error) => {
      if (ended) return;
      ended = true;
      this.connected = false;
      this.stream = null;
      if (!this.stopped) this.retry(err ?? new Error('the events stream ended'));
    };
    stream.on('data', split);
    stream.on('error', lost);
    stream.on('end', () => lost());
    stream.on('close', () => lost());
    this.o.onConnected(this.serverId);
  }

  // one warning per outage, not per attempt: a server down for an hour must not flood the log
  private retry(err: unknown): void {
    if (this.failures === 0) {
      this.lostAt = Date.now();
      this.o.logger.warn('docker events watch lost, reconnecting', { serverId: this.serverId, error: err instanceof Error ? err.message : String(err) });
    }
    const delay = Math.min(this.o.maxBackoffMs, this.o.minBackoffMs * 2 ** this.failures);
    this.failures++;
    this.timer = setTimeout(() => void this.open(), delay);
    this.timer.unref();
  }
}

/** The watches of every server: `sync` with the servers that should be watched. */
export class DockerEventWatches {
  private readonly watches = new Map<string, ServerWatch>();
  private readonly o: Required<Omit<DockerEventWatchOptions, 'connectsAtOnce'>>;
  private readonly connecting: <T>(fn: () => Promise<T>) => Promise<T>;

  constructor({ connectsAtOnce, ...opts }: DockerEventWatchOptions) {
    this.o = { minBackoffMs: 250, maxBackoffMs: 10_000, onReconnected: () => undefined, ...opts };
    this.connecting = connectsAtOnce ? concurrencyLimit(connectsAtOnce) : (fn) => fn();
  }

  /** Starts watches of new servers and stops those of servers no longer listed. */
  sync(serverIds: Iterable<string>): void {
    const keep = new Set(serverIds);
    for (const id of [...this.watches.keys()]) if (!keep.has(id)) this.unwatch(id);
    for (const id of keep) this.watch(id);
  }

  watch(serverId: string): void {
    if (this.watches.has(serverId)) return;
    const w: ServerWatch = new ServerWatch(serverId, this.o, this.connecting, () => { if (this.watches.get(serverId) === w) this.watches.delete(serverId); });
    this.watches.set(serverId, w);
    w.start();
  }

  unwatch(serverId: string): void {
    this.watches.get(serverId)?.stop();
    this.watches.delete(serverId);
  }

  /** The server has a watch (open, opening or waiting to reopen). */
  has(serverId: string): boolean {
    return this.watches.has(serverId);
  }

  /** True while the server's stream is open. */
  isConnected(serverId: string): boolean {
    return this.watches.get(serverId)?.connected ?? false;
  }

  close(): void {
    for (const id of [...this.watches.keys()]) this.unwatch(id);
  }
}
