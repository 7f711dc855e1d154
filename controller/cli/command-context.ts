import { Option, type Command } from 'commander';
import { ApiClient } from './api-client.js';
import { resolveConnection, type Connection } from './connection.js';
import { COLOURS, PLAIN, type Palette } from './format-changes.js';

/** What every networked command needs, from the global options (--url, --token, --context, -e). */
/** `live`: a terminal with colour, where a followed plan redraws in place instead of printing lines. */
export interface CommandContext { api: ApiClient; conn: Connection; environment?: string; palette: Palette; live: boolean; opts: Record<string, any> }

/** Colour only on a terminal, not with --no-color or NO_COLOR (https://no-color.org). */
export function paletteOf(opts: { color?: boolean }, stream: NodeJS.WriteStream = process.stdout): Palette {
  return stream.isTTY && opts.color !== false && !process.env.NO_COLOR ? COLOURS : PLAIN;
}

export function contextOf(cmd: Command): CommandContext {
  const opts = cmd.optsWithGlobals();
  const conn = resolveConnection({ url: opts.url, token: opts.token, context: opts.context });
  const palette = paletteOf(opts);
  return { api: new ApiClient(conn.url, conn.token), conn, environment: opts.env ?? conn.environment, palette, live: palette === COLOURS, opts };
}

export const out = (s: string) => { process.stdout.write(s); };

export const envOption = () => new Option('-e, --env <environment>', 'environment name or id (default: the context\'s)');
