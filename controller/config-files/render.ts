import { tokenize } from './placeholders.js';
import type { Secret } from './secret.js';
import { REDACTED } from '../crypto/redact.js';

export interface RenderContext {
  vars: ReadonlyMap<string, string>;
  secrets: ReadonlyMap<string, Secret>;
  /** Fragment name -> content (fragments use ${KEY} but include no other fragment). */
  fragments: ReadonlyMap<string, string>;
}

export interface RenderResult {
  content: string;
  /** Keys with neither a var nor a secret: left as `${KEY}`, never rendered as empty. */
  unresolvedKeys: string[];
  unknownFragments: string[];
  usedSecrets: string[];
  usedVars: string[];
  usedFragments: string[];
}

/**
 * Renders a template (syntax in placeholders.ts). Pure. `redact` puts [REDACTED] where a secret
 * value would go (preview); otherwise secret values are revealed into the result, which must then
 * only ever go to a server. A var and a secret with one key: the secret wins.
 */
export function render(template: string, ctx: RenderContext, opts: { redact?: boolean } = {}): RenderResult {
  const unresolved = new Set<string>();
  const unknownFragments = new Set<string>();
  const usedSecrets = new Set<string>();
  const usedVars = new Set<string>();
  const usedFragments = new Set<string>();

  const expand = (text: string, allowFragments: boolean): string => {
    const tokens = tokenize(text);
    if (tokens.length === 0) return text;
    const parts: string[] = [];
    let at = 0;
    for (const t of tokens) {
      parts.push(text.slice(at, t.start));
      at = t.end;
      if (t.kind === 'escape') parts.push('${');
      else if (t.kind === 'key') {
        const secret = ctx.secrets.get(t.name);
        if (secret) {
          usedSecrets.add(t.name);
          parts.push(opts.redact ? REDACTED : secret.reveal());
        } else if (ctx.vars.has(t.name)) {
          usedVars.add(t.name);
          parts.push(ctx.vars.get(t.name)!);
        } else {
          unresolved.add(t.name);
          parts.push(text.slice(t.start, t.end));
        }
      } else if (t.kind === 'fragment' && allowFragments) {
        const fragment = ctx.fragments.get(t.name);
        if (fragment === undefined) {
          unknownFragments.add(t.name);
          parts.push(text.slice(t.start, t.end));
        } else {
          usedFragments.add(t.name);
          parts.push(expand(fragment, false));
        }
      } else parts.push(text.slice(t.start, t.end));
    }
    parts.push(text.slice(at));
    return parts.join('');
  };

  const content = expand(template, true);
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    content,
    unresolvedKeys: sorted(unresolved),
    unknownFragments: sorted(unknownFragments),
    usedSecrets: sorted(usedSecrets),
    usedVars: sorted(usedVars),
    usedFragments: sorted(usedFragments),
  };
}
