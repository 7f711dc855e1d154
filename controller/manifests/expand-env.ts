import type { ManifestError, ManifestFile } from './types.js';
import { envReferenceRefusal, type ManifestOrigin } from './reference-policy.js';

/**
 * `${env:NAME}` in a manifest file's text becomes the controller's environment variable NAME,
 * before the YAML is parsed, so one folder serves any set of servers (addresses, ports, registry
 * URLs). `$${env:NAME}` stays as the literal text `${env:NAME}`. Only the `env:` prefix is
 * expanded: `${KEY}` and `${fragment:NAME}` belong to config files and service env and are left
 * for deploy time. Secrets keep `valueFrom`: an expanded value is plain text in the object.
 *
 * A missing variable, a malformed name or a value with a line break (it would change the YAML's
 * structure) is an error at the reference's file:line; the reference is left in place. Only the
 * watched folder's manifests are expanded (reference-policy.ts): from the API or a Git source,
 * each reference is an error at its file:line and nothing is read.
 */
const REFERENCE = /(\$?)\$\{env:([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function expandEnvRefs(file: ManifestFile, errors: ManifestError[], env: NodeJS.ProcessEnv = process.env, origin: ManifestOrigin = 'folder'): string {
  return file.content.replace(REFERENCE, (match, escape: string, name: string, offset: number) => {
    if (escape) return match.slice(1);
    const fail = (message: string) => {
      errors.push({ file: file.path, ...positionAt(file.content, offset), path: '', message });
      return match;
    };
    const refused = envReferenceRefusal(origin, NAME.test(name) ? name : '…');
    if (refused) return fail(refused);
    if (!NAME.test(name)) return fail(`\${env:${name}}: not a valid environment variable name`);
    const value = env[name];
    if (value === undefined) return fail(`\${env:${name}}: environment variable ${name} is not set`);
    if (/[\r\n]/.test(value)) return fail(`\${env:${name}}: the value has a line break (use valueFrom for keys and other multi-line values)`);
    return value;
  });
}

/** 1-based line and column of offset, as the YAML errors report them. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
}
