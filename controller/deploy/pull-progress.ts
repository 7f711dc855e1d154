// What a Docker pull's progress stream said so far: when it last moved, what it last did, and in
// the end how much it fetched. Docker sends one JSON object per change (a layer queued,
// `Downloading` with bytes so far, `Extracting`, `Pull complete`, a final `Status:` line); a
// registry that stops sending leaves the stream silent, which is what idleMs() measures.

export interface PullEvent {
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message?: string };
}

export interface PullSummary {
  /** Layers fetched from the registry by this pull. */
  layersPulled: number;
  /** Layers the server already had. */
  layersPresent: number;
  /** Bytes of the layers fetched (as the registry announced them). */
  bytes: number;
  /** The server already had the image at this tag's digest: nothing was fetched. */
  upToDate: boolean;
  ms: number;
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export class PullProgress {
  private readonly started: number;
  private lastAt: number;
  private lastEvent: PullEvent | null = null;
  private failure: string | null = null;
  private upToDate = false;
  private readonly sizes = new Map<string, number>();
  private readonly done = new Set<string>();
  private readonly present = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {
    this.started = this.lastAt = now();
  }

  record(e: PullEvent): void {
    this.lastAt = this.now();
    this.lastEvent = e;
    if (e.error || e.errorDetail) this.failure ??= e.errorDetail?.message ?? e.error ?? 'unknown error';
    const status = e.status ?? '';
    if (/^Status: Image is up to date/.test(status)) this.upToDate = true;
    if (!e.id) return;
    if (status === 'Downloading' && e.progressDetail?.total) this.sizes.set(e.id, e.progressDetail.total);
    if (status === 'Pull complete') this.done.add(e.id);
    if (status === 'Already exists') this.present.add(e.id);
  }

  /** Milliseconds since the stream last said anything (or since the pull began). */
  idleMs(): number {
    return this.now() - this.lastAt;
  }

  /** The first error the stream reported, if any. */
  error(): string | null {
    return this.failure;
  }

  /** What the stream said last, for a message about a stalled pull. */
  last(): string {
    const e = this.lastEvent;
    if (!e) return 'the server reported nothing since the pull began';
    const at = e.progressDetail?.total ? ` at ${mb(e.progressDetail.current ?? 0)} of ${mb(e.progressDetail.total)}` : '';
    return `last: ${e.id ? `layer ${e.id} ` : ''}${e.status ?? 'an event without status'}${at}`;
  }

  summary(): PullSummary {
    let bytes = 0;
    for (const id of this.done) bytes += this.sizes.get(id) ?? 0;
    return { layersPulled: this.done.size, layersPresent: this.present.size, bytes, upToDate: this.upToDate, ms: this.now() - this.started };
  }
}

/** One line for a step's log: what the pull fetched and how long it took. */
export function describePull(image: string, p: PullSummary): string {
  if (p.upToDate || p.layersPulled === 0) return `${image} was already on the server (${(p.ms / 1000).toFixed(1)} s)`;
  return `pulled ${image}: ${p.layersPulled} layer${p.layersPulled === 1 ? '' : 's'}, ${mb(p.bytes)} in ${(p.ms / 1000).toFixed(1)} s`
    + (p.layersPresent ? ` (${p.layersPresent} already on the server)` : '');
}
