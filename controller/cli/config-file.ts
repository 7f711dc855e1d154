import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CliError } from './cli-error.js';

/** One controller the CLI talks to: its URL, a token (a JWT from login or an API token) and a default environment. */
export interface CliContext { name: string; url: string; token: string; environment?: string }
export interface CliConfig { currentContext?: string; contexts: CliContext[] }

/** `$XDG_CONFIG_HOME/stevedore/config.yaml`, `~/.config/stevedore/config.yaml` when unset (XDG base directories). */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'stevedore', 'config.yaml');
}

export function readConfig(file: string): CliConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { contexts: [] };
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  let doc: Partial<CliConfig> | null;
  try {
    doc = YAML.parse(text) as Partial<CliConfig> | null;
  } catch (e) {
    throw new CliError(`${file} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const contexts = Array.isArray(doc?.contexts) ? doc.contexts.filter((c) => c && typeof c.name === 'string' && typeof c.url === 'string') : [];
  return { currentContext: doc?.currentContext, contexts };
}

/**
 * Writes the file with mode 0600 (it holds tokens): a new file is created so, and an existing
 * one is narrowed too, since an earlier tool may have left it readable by others.
 */
export function writeConfig(file: string, config: CliConfig): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, YAML.stringify(config), { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** Adds or replaces the context of that name and makes it the current one. */
export function withContext(config: CliConfig, ctx: CliContext): CliConfig {
  return { currentContext: ctx.name, contexts: [...config.contexts.filter((c) => c.name !== ctx.name), ctx] };
}

export function useContext(config: CliConfig, name: string): CliConfig {
  if (!config.contexts.some((c) => c.name === name)) {
    throw new CliError(`no context named ${name} (known: ${config.contexts.map((c) => c.name).join(', ') || 'none; run stevedore login URL'})`);
  }
  return { ...config, currentContext: name };
}

/** A context name from the URL: its host and port, as `kubectl config` names clusters. */
export const contextNameOf = (url: string) => new URL(url).host;
