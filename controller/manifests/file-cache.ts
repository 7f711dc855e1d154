/**
 * What was made from each file of a folder (parsed and validated documents), kept by path and
 * reused while the file's text is the same: a save of one file of a large folder parses and
 * validates that file only. Keyed by the text itself (after `${env:}` expansion), not by file
 * times: a checkout that rewrites a file unchanged, or a clock that moves, cannot serve stale
 * documents. Pure: no I/O.
 */
export class FileCache<T> {
  private readonly entries = new Map<string, { text: string; value: T }>();

  /** The value made from this text of this path: the one kept when the text is unchanged, else make()'s (then kept). */
  get(path: string, text: string, make: () => T): T {
    const kept = this.lookup(path, text);
    if (kept !== undefined) return kept;
    const value = make();
    this.keep(path, text, value);
    return value;
  }

  /** The value kept for this text of this path, if any. */
  lookup(path: string, text: string): T | undefined {
    const kept = this.entries.get(path);
    return kept && kept.text === text ? kept.value : undefined;
  }

  keep(path: string, text: string, value: T): void {
    this.entries.set(path, { text, value });
  }

  /** Forgets the files that are no longer in the folder. */
  keepOnly(paths: Iterable<string>): void {
    const keep = new Set(paths);
    for (const path of this.entries.keys()) if (!keep.has(path)) this.entries.delete(path);
  }

  get size(): number {
    return this.entries.size;
  }
}
