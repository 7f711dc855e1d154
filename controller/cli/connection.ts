import { CliError } from './cli-error.js';
import { configPath, readConfig, type CliContext } from './config-file.js';

export interface Connection { url: string; token: string; environment?: string; context?: string }
export interface ConnectionFlags { url?: string; token?: string; context?: string }

/**
 * Where a command talks to, first found wins: --url/--token, then --context (asked for by
 * name), then STEVEDORE_URL/STEVEDORE_TOKEN (they override the current context, as the spec
 * says; set but empty counts as unset), then the current context of the config file. A context's token goes only to that
 * context's URL: `--url https://elsewhere` never carries the current context's token there.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Connection {
  // a variable set but empty (`STEVEDORE_URL= stevedore …`, an unset CI secret) counts as unset
  const envUrl = env.STEVEDORE_URL || undefined;
  const envToken = env.STEVEDORE_TOKEN || undefined;
  const config = readConfig(configPath(env));
  const named = flags.context ? config.contexts.find((c) => c.name === flags.context) : undefined;
  if (flags.context && !named) throw new CliError(`no context named ${flags.context} (see stevedore context list)`);
  const current = config.contexts.find((c) => c.name === config.currentContext);
  const url = flags.url ?? named?.url ?? envUrl ?? current?.url;
  if (!url) throw new CliError('no controller: run stevedore login URL, or set STEVEDORE_URL and STEVEDORE_TOKEN');
  const same = (c: CliContext | undefined) => (c && c.url === url ? c : undefined);
  const ctx = same(named) ?? (named ? undefined : same(current));
  const token = flags.token ?? (named ? ctx?.token : envToken ?? ctx?.token);
  if (!token) throw new CliError(`no token for ${url}: run stevedore login ${url}, or set STEVEDORE_TOKEN`);
  return { url, token, environment: ctx?.environment, context: ctx?.name };
}
