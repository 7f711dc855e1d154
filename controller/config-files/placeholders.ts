/**
 * Template syntax of config files and fragments:
 * - `${KEY}`: the environment's var or secret KEY, KEY matching [A-Z_][A-Z0-9_]*;
 * - `${fragment:NAME}`: the content of the environment's config fragment NAME
 *   (NAME matching [A-Za-z0-9][A-Za-z0-9._-]*); fragments may use `${KEY}` but not include others;
 * - `$${`: a literal `${` (so shell scripts can keep `$${HOME}`).
 * Anything else between `${` and `}` (lower case, spaces, shell metacharacters, an unclosed `${`)
 * is invalid and rejected when the template is saved.
 */
export const KEY_PATTERN = '^[A-Z_][A-Z0-9_]*$';
export const KEY_RE = /^[A-Z_][A-Z0-9_]*$/;
export const FRAGMENT_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const FRAGMENT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export type Token =
  | { kind: 'key'; start: number; end: number; name: string }
  | { kind: 'fragment'; start: number; end: number; name: string }
  | { kind: 'escape'; start: number; end: number }
  | { kind: 'invalid'; start: number; end: number; text: string };

// `$${` escape | `${...}` on one line | an unclosed `${`
const TOKEN_RE = /\$\$\{|\$\{([^}\n]{0,300})\}|\$\{/g;

export function tokenize(content: string): Token[] {
  const tokens: Token[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(content); m; m = TOKEN_RE.exec(content)) {
    const start = m.index;
    const end = start + m[0].length;
    if (m[0] === '$${') tokens.push({ kind: 'escape', start, end });
    else if (m[1] === undefined) tokens.push({ kind: 'invalid', start, end, text: m[0] });
    else if (KEY_RE.test(m[1])) tokens.push({ kind: 'key', start, end, name: m[1] });
    else if (m[1].startsWith('fragment:') && FRAGMENT_NAME_RE.test(m[1].slice(9))) {
      tokens.push({ kind: 'fragment', start, end, name: m[1].slice(9) });
    } else tokens.push({ kind: 'invalid', start, end, text: m[0] });
  }
  return tokens;
}

export interface TemplateProblem {
  line: number;
  column: number;
  /** The offending text, cut short (user content, never a secret value). */
  text: string;
}

const lineColumn = (content: string, offset: number) => {
  let line = 1;
  let last = -1;
  for (let i = content.indexOf('\n'); i !== -1 && i < offset; i = content.indexOf('\n', i + 1)) {
    line++;
    last = i;
  }
  return { line, column: offset - last };
};

/** The first invalid placeholder, or null. `allowFragments` false: fragments cannot nest. */
export function findTemplateProblem(content: string, allowFragments = true): TemplateProblem | null {
  for (const t of tokenize(content)) {
    if (t.kind === 'invalid' || (t.kind === 'fragment' && !allowFragments)) {
      const text = content.slice(t.start, Math.min(t.end, t.start + 40));
      return { ...lineColumn(content, t.start), text };
    }
  }
  return null;
}

export interface References {
  keys: string[];
  fragments: string[];
}

/** The keys and fragment names a template uses, sorted and unique. */
export function referencesOf(content: string): References {
  const keys = new Set<string>();
  const fragments = new Set<string>();
  for (const t of tokenize(content)) {
    if (t.kind === 'key') keys.add(t.name);
    else if (t.kind === 'fragment') fragments.add(t.name);
  }
  return { keys: [...keys].sort(), fragments: [...fragments].sort() };
}
