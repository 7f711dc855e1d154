import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ApiClient } from '../api-client.js';
import { CliError, UsageError } from '../cli-error.js';
import { configPath, contextNameOf, readConfig, useContext, withContext, writeConfig } from '../config-file.js';
import { out } from '../command-context.js';
import { formatTable } from '../format-table.js';

/** Reads email and password from stdin: a terminal gets prompts and no echo of the password, a pipe two lines. */
async function promptCredentials(): Promise<{ email: string; password: string }> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: !!process.stdin.isTTY });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (q: string, hidden = false) => {
    if (process.stdin.isTTY) process.stderr.write(q);
    // readline echoes what is typed through _writeToOutput: muting it while the password is
    // typed is the usual way to read one without a dependency (Node has no public switch)
    const write = (rl as unknown as { _writeToOutput: (s: string) => void });
    const original = write._writeToOutput;
    if (hidden && process.stdin.isTTY) write._writeToOutput = () => undefined;
    const { value, done } = await lines.next();
    write._writeToOutput = original;
    if (hidden && process.stdin.isTTY) process.stderr.write('\n');
    if (done) throw new CliError('no credentials on stdin: pass --token, or type email and password');
    return String(value).trim();
  };
  try {
    return { email: await ask('Email: '), password: await ask('Password: ', true) };
  } finally {
    rl.close();
  }
}

/** Where single sign-on ends for the CLI: a dashboard page of the controller's own origin that shows the token to paste. */
export const SSO_LANDING = '/cli-token';

/** Opens the address in the desktop's browser when there is one; the address is printed either way. */
function openBrowser(address: string): void {
  const [cmd, ...args] = process.platform === 'darwin' ? ['open'] : process.platform === 'win32' ? ['rundll32', 'url.dll,FileProtocolHandler'] : ['xdg-open'];
  try {
    const child = spawn(cmd, [...args, address], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch { /* no browser here: the printed address is enough */ }
}

/**
 * `login URL --sso`: the browser signs in at the OpenID provider and lands on the controller's
 * own /cli-token page (next= takes only same-origin paths), which shows the token; it is pasted
 * here. No port is opened on this machine and nothing but the user carries the token.
 */
async function ssoToken(base: string, browser: boolean): Promise<string> {
  const setup = await new ApiClient(base, '').get<{ sso?: boolean }>('/api/auth/setup');
  if (!setup.sso) throw new CliError(`${base} has no single sign-on (OIDC_ISSUER is not set there): stevedore login ${base}, or --token`);
  const address = `${base}/api/auth/oidc/login?next=${encodeURIComponent(SSO_LANDING)}`;
  process.stderr.write(`Sign in through your browser at\n  ${address}\nthen paste the token the page shows.\n`);
  if (browser && process.stdin.isTTY && (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY)) openBrowser(address);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: !!process.stdin.isTTY });
  try {
    const write = (rl as unknown as { _writeToOutput: (s: string) => void });
    if (process.stdin.isTTY) {
      process.stderr.write('Token: ');
      write._writeToOutput = () => undefined; // the token is a secret: not echoed (as the password)
    }
    const { value, done } = await rl[Symbol.asyncIterator]().next();
    if (process.stdin.isTTY) process.stderr.write('\n');
    const token = done ? '' : String(value).trim();
    if (!token) throw new CliError('no token pasted: sign in at the address above and paste the token the page shows');
    return token;
  } finally {
    rl.close();
  }
}

async function login(url: string, opts: { token?: string; name?: string; environment?: string; sso?: boolean; browser?: boolean }, cmd: Command): Promise<void> {
  let parsed: URL;
  try { parsed = new URL(url); } catch { throw new UsageError(`${url} is not a URL (for example http://127.0.0.1:8080)`); }
  const base = parsed.origin;
  // --token here is the login's own; the global --token would otherwise shadow it
  const token0 = opts.token ?? cmd.parent?.opts().token;
  if (opts.sso && token0) throw new UsageError('login takes --sso or --token, not both');
  let token: string;
  if (token0) {
    token = token0;
  } else if (opts.sso) {
    token = await ssoToken(base, opts.browser !== false);
  } else {
    const creds = await promptCredentials();
    const res = await new ApiClient(base, '').raw('POST', '/api/auth/login', creds);
    const body = await res.json().catch(() => null) as { token?: string; message?: string } | null;
    if (!res.ok || !body?.token) throw new CliError(`login to ${base} failed: ${res.status} ${body?.message ?? ''}`.trim());
    token = body.token;
  }
  const me = await new ApiClient(base, token).get<{ email?: string; name?: string; role?: string }>('/api/auth/me');
  const file = configPath();
  const name = opts.name ?? contextNameOf(base);
  writeConfig(file, withContext(readConfig(file), { name, url: base, token, ...(opts.environment && { environment: opts.environment }) }));
  out(`Logged in to ${base} as ${me.email ?? me.name ?? 'a token'} (${me.role ?? 'unknown role'}); context ${name} saved in ${file}.\n`);
}

export function registerContextCommands(program: Command): void {
  program.command('login').argument('<url>', 'controller URL')
    .description('log in (email and password on stdin, --sso through the browser, or --token) and save a context')
    .option('--token <token>', 'an API token to store instead of logging in')
    .option('--sso', 'sign in through single sign-on in a browser, then paste the token its page shows')
    .option('--no-browser', 'with --sso: only print the address to open')
    .option('--name <name>', 'context name (default: the URL\'s host:port)')
    .option('-e, --environment <env>', 'default environment of the context')
    .action(login);
  const context = program.command('context').description('list the saved contexts or switch between them');
  context.command('list').description('the contexts; * marks the current one').action(() => {
    const config = readConfig(configPath());
    out(formatTable(['current', 'name', 'url', 'environment'], config.contexts.map((c) => [c.name === config.currentContext ? '*' : ' ', c.name, c.url, c.environment])).replace(/<none>/g, ''));
  });
  context.command('use').argument('<name>').description('make NAME the current context').action((name: string) => {
    const file = configPath();
    writeConfig(file, useContext(readConfig(file), name));
    out(`Switched to context ${name}.\n`);
  });
}
