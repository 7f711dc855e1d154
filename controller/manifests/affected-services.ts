import { fragmentNames } from '../kinds/config-file.js';
import type { Change, ObjectState } from './state.js';

const usesKey = (text: unknown, key: string) => typeof text === 'string' && new RegExp(`(?<!\\$)\\$\\{${key}\\}`).test(text);

/**
 * Services that must be redeployed because configuration they use changed: a var or secret
 * named in their env or in an attached config file (directly or through a fragment), a config
 * file they attach, or a fragment one of those files includes. Names are `${env}/${service}`.
 */
export function servicesAffectedByConfig(changes: Change[], objects: ObjectState[]): Set<string> {
  const out = new Set<string>();
  const changed = changes.filter((c) => c.action === 'update' && c.fields.length && ['Var', 'Secret', 'ConfigFile', 'ConfigFragment'].includes(c.kind));
  if (!changed.length) return out;
  const of = (kind: string, env: string | undefined) => objects.filter((o) => o.kind === kind && o.environment === env);
  for (const c of changed) {
    const files = of('ConfigFile', c.environment);
    const fragments = of('ConfigFragment', c.environment);
    const fileUses = (f: ObjectState): boolean => {
      if (c.kind === 'ConfigFile') return f.name === c.name;
      const included = fragmentNames(f.fields.content);
      if (c.kind === 'ConfigFragment') return included.includes(c.name);
      return usesKey(f.fields.content, c.name) || fragments.some((g) => included.includes(g.name) && usesKey(g.fields.content, c.name));
    };
    const usedFiles = new Set(files.filter(fileUses).map((f) => f.name));
    for (const svc of of('Service', c.environment)) {
      const attached = ((svc.fields.configFiles as Array<{ name: string }> | undefined) ?? []).some((a) => usedFiles.has(a.name));
      const inEnv = ['Var', 'Secret'].includes(c.kind) && Object.values((svc.fields.env as Record<string, string>) ?? {}).some((v) => usesKey(v, c.name));
      if (attached || inEnv) out.add(`${svc.environment}/${svc.name}`);
    }
  }
  return out;
}
