// The one place where argv becomes a shell line. Every remote command goes through here, so user
// input (image names, paths, env values) can never be interpreted by the remote shell.

/** A command as an argument vector; builders return these and never run anything. */
export type Argv = readonly string[];

// Characters that never mean anything to POSIX sh or bash, so words made only of them may stay
// bare. Deliberately excludes `~` (tilde expansion), `*?[` (globs), `!` (history), `{}` (braces).
const SAFE_WORD = /^[A-Za-z0-9_\/.,:=@%+-]+$/;

/** Quote one argument for POSIX sh/bash. Throws on NUL, which no argv can carry. */
export function quoteArg(arg: string): string {
  if (arg.includes('\0')) throw new TypeError('shell argument contains a NUL byte');
  if (arg === '') return "''";
  if (SAFE_WORD.test(arg)) return arg;
  // Inside single quotes nothing is special except the quote itself: close, escape, reopen.
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Join argv into one shell line where each element is exactly one word. */
export function toShellLine(argv: Argv): string {
  if (argv.length === 0) throw new TypeError('empty command');
  return argv.map(quoteArg).join(' ');
}
