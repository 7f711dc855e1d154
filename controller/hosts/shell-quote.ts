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

// Options whose next argument (or `=` value) may carry a secret: env values, build args, passwords.
const VALUE_OPTIONS = new Set(['--env', '-e', '--build-arg', '--secret']);
const SECRET_OPTIONS = new Set(['--password', '--token']);

/**
 * The command as a shell line for messages (errors, logs, API answers): like toShellLine, but the
 * value of every `--env KEY=VALUE` (also -e, --build-arg, --secret) and of --password/--token is
 * replaced by `***`, so a failed `docker run --env API_TOKEN=...` never shows the token.
 */
export function describeArgv(argv: Argv): string {
  const shown = argv.map((arg, i) => {
    const prev = argv[i - 1];
    if (prev !== undefined && SECRET_OPTIONS.has(prev)) return '***';
    if (prev !== undefined && VALUE_OPTIONS.has(prev)) return maskAssignment(arg);
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      const opt = arg.slice(0, eq);
      if (SECRET_OPTIONS.has(opt)) return `${opt}=***`;
      if (VALUE_OPTIONS.has(opt)) return `${opt}=${maskAssignment(arg.slice(eq + 1))}`;
    }
    return arg;
  });
  return toShellLine(shown);
}

const maskAssignment = (kv: string): string => (kv.includes('=') ? `${kv.slice(0, kv.indexOf('='))}=***` : kv);
