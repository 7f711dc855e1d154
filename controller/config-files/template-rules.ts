import { validationError } from '../errors/app-error.js';
import { findTemplateProblem } from './placeholders.js';

const HINT = 'Placeholders are ${KEY} (KEY matching [A-Z_][A-Z0-9_]*) or ${fragment:NAME}; write $${ for a literal ${';

/** Rejects a template with an invalid placeholder (VALIDATION_ERROR on `field`, with line and column). */
export function assertValidTemplate(content: string, opts: { allowFragments: boolean; field?: string }): void {
  if (content.includes('\u0000')) throw validationError('content must not contain NUL characters', opts.field ?? 'content');
  const problem = findTemplateProblem(content, opts.allowFragments);
  if (!problem) return;
  const what = problem.text.startsWith('${fragment:') && !opts.allowFragments
    ? 'a fragment cannot include another fragment'
    : `invalid placeholder ${JSON.stringify(problem.text)}`;
  throw validationError(`content has ${what} at line ${problem.line}, column ${problem.column}`, opts.field ?? 'content', HINT);
}
