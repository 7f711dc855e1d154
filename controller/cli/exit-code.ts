import { EXIT } from './cli-error.js';

let exitCode: number = EXIT.ok;

/** A command that succeeds with another code than 0 (diff's 2 when something would change) says so here. */
export function setExitCode(code: number): void {
  exitCode = code;
}

/** The code of the run that just ended, reset for the next one. */
export function takeExitCode(): number {
  const code = exitCode;
  exitCode = EXIT.ok;
  return code;
}
