/**
 * Something the controller depends on besides its database (the object storage, a registry, a
 * webhook receiver) failed. `unreachable`: no answer at the connection level (refused, reset,
 * timed out, not resolved), try again later (503); `bad-answer`: it answered, but not what that
 * kind of service answers or an error of its own (502); `refused`: its address is one the
 * outgoing guard does not let the controller reach (409: a setting to change). The message names the dependency and
 * never holds a credential; the original error stays as `cause` for the log.
 */
export class DependencyError extends Error {
  constructor(
    readonly dependency: string,
    readonly kind: 'unreachable' | 'bad-answer' | 'refused',
    message: string,
    options: { cause?: unknown; hint?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'DependencyError';
    this.hint = options.hint;
  }

  readonly hint?: string;
}

/** The first DependencyError in an error's cause chain. */
export function dependencyErrorIn(e: unknown): DependencyError | null {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof DependencyError) return cur;
  }
  return null;
}

/** A URL as errors may show it: scheme, host and port, never user info, path or query. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
};
