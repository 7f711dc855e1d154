// Shell plumbing written once (Kamal's combine/chain/pipe): each part is quoted by toShellLine and
// only the operator between parts is raw, so the result is still a plain argv: sh -c '<line>'.
import { toShellLine, type Argv } from '../shell-quote.js';

function joinWith(operator: string, parts: Argv[]): string[] {
  if (parts.length === 0) throw new TypeError(`nothing to join with ${operator}`);
  return ['sh', '-c', parts.map(toShellLine).join(` ${operator} `)];
}

/** Run every part, stop at the first failure. */
export const and = (...parts: Argv[]): string[] => joinWith('&&', parts);
/** Run parts until one succeeds. */
export const or = (...parts: Argv[]): string[] => joinWith('||', parts);
/** Run every part whatever the others did (`;`): a batch of independent reads. */
export const sequence = (...parts: Argv[]): string[] => joinWith(';', parts);
/** stdout of each part into the next. */
export const pipe = (...parts: Argv[]): string[] => joinWith('|', parts);
