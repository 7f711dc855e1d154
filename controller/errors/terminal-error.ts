/** A reconcile failure that retrying cannot fix (bad configuration): mark Stalled, do not requeue. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}
