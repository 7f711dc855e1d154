// `stevedore exec -it`: the local terminal (raw mode) bridged to the exec WebSocket
// (api/routes/exec-session.ts): keystrokes as binary frames, resizes as JSON, the container's
// terminal output straight to stdout, the exit code from the last message.
import WebSocket from 'ws';
import { CliError } from '../cli-error.js';
import { apiErrorLine } from '../api-client.js';
import type { CommandContext } from '../command-context.js';

/** Why the server ended a session, as a line for stderr (nothing for a command that just ended). */
const ENDED: Record<string, string> = {
  revoked: 'the session ended: the token was revoked or expired',
  'role-lowered': 'the session ended: your role no longer allows exec here',
  'exec-disabled': 'the session ended: exec was turned off in this environment (operations.allowExec)',
  'container-gone': 'the session ended: the connection to the container was lost',
};

/** The URL of the WebSocket route with the command as repeated ?cmd= and the terminal's size. */
export function execSocketUrl(base: string, path: string, command: string[], size?: { cols: number; rows: number }): string {
  const url = new URL(path, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  for (const arg of command) url.searchParams.append('cmd', arg);
  if (size) { url.searchParams.set('cols', String(size.cols)); url.searchParams.set('rows', String(size.rows)); }
  return url.toString();
}

/** Runs the session; answers the command's exit code (1 when the server ended it first). */
export async function interactiveExec(c: CommandContext, path: string, command: string[]): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  const size = stdout.isTTY ? { cols: stdout.columns, rows: stdout.rows } : undefined;
  const ws = new WebSocket(execSocketUrl(c.conn.url, path, command, size), ['stevedore.exec'], { headers: { authorization: `Bearer ${c.conn.token}` } });
  return new Promise<number>((resolve, reject) => {
    let code: number | null = null;
    let reason: string | null = null;
    const raw = stdin.isTTY;
    const restore = () => {
      if (raw) stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onInput);
      stdout.removeListener('resize', onResize);
    };
    const onInput = (b: Buffer) => { if (ws.readyState === ws.OPEN) ws.send(b, { binary: true }); };
    const onResize = () => { if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'resize', cols: stdout.columns, rows: stdout.rows })); };
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (d: Buffer) => { text += d.toString('utf8'); });
      res.on('end', () => {
        let body = null;
        try { body = JSON.parse(text); } catch { /* not the envelope */ }
        reject(new CliError(`exec: ${apiErrorLine(res.statusCode ?? 0, body)}`));
      });
    });
    ws.on('error', (e) => reject(new CliError(`exec: cannot reach ${c.conn.url}: ${e.message}`)));
    ws.on('open', () => {
      if (raw) stdin.setRawMode(true);
      stdin.on('data', onInput);
      // input that ends (a pipe) closes the terminal's input as Ctrl-D would
      stdin.once('end', () => { if (ws.readyState === ws.OPEN) ws.send(Buffer.from([4]), { binary: true }); });
      stdin.resume();
      stdout.on('resize', onResize);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) { stdout.write(data); return; }
      try {
        const m = JSON.parse(data.toString('utf8')) as { type?: string; exitCode?: number | null; reason?: string };
        if (m.type === 'exit') { code = m.exitCode ?? null; reason = m.reason ?? null; }
      } catch { /* not a control message */ }
    });
    ws.on('close', () => {
      restore();
      if (reason && ENDED[reason]) process.stderr.write(`\r\nstevedore: ${ENDED[reason]}\n`);
      resolve(code ?? 1);
    });
  });
}
