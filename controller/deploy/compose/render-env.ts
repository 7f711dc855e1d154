// Renders a service's env map: ${KEY} placeholders are replaced from the environment's vars and
// secrets. The result knows which keys carry secret material, so previews can redact them.
export interface EnvSources {
  vars: Record<string, string>;
  secrets: Record<string, string>;
}

export interface RenderedEnv {
  values: Record<string, string>;
  /** Keys whose value contains a secret (and must be shown as [REDACTED]). */
  secretKeys: string[];
  /** Placeholders no var or secret defines. */
  unresolved: string[];
}

const PLACEHOLDER = /\$\{([A-Z_][A-Z0-9_]*)\}/g;

export function renderEnv(env: Record<string, string>, sources: EnvSources): RenderedEnv {
  const values: Record<string, string> = {};
  const secretKeys = new Set<string>();
  const unresolved = new Set<string>();
  for (const [key, template] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    values[key] = template.replace(PLACEHOLDER, (whole, name: string) => {
      if (name in sources.secrets) {
        secretKeys.add(key);
        return sources.secrets[name];
      }
      if (name in sources.vars) return sources.vars[name];
      unresolved.add(name);
      return whole;
    });
  }
  return { values, secretKeys: [...secretKeys].sort(), unresolved: [...unresolved].sort() };
}
