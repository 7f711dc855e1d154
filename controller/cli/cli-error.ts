/**
 * An error the CLI reports as one line (`stevedore: <message>`) with its exit code: 1 for a
 * failure, 64 for a usage mistake (sysexits' EX_USAGE). Anything else thrown is a bug, and
 * even that is one line unless --debug asks for the stack.
 */
export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 64);
  }
}

export const EXIT = { ok: 0, error: 1, changes: 2, usage: 64 } as const;
