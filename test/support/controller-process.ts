// A controller as a real child process (`node bin/stevedore.js serve`), resolved once it listens:
// the replica and restart tests run several on one database and kill them with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { HttpClient } from './http-client.js';
import { listeningUrl } from './log-lines.js';

export interface ControllerProcess { name: string; child: ChildProcess; url: string; api: HttpClient; lines: string[] }

export function serveController(name: string, env: Record<string, string>, token: string): Promise<ControllerProcess> {
  const child = spawn(process.execPath, ['bin/stevedore.js', 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    let rest = '';
    const timer = setTimeout(() => reject(new Error(`replica ${name} did not start:\n${lines.join('\n')}`)), 120_000);
    child.stderr!.on('data', (d: Buffer) => {
      const parts = (rest + d.toString()).split('\n');
      rest = parts.pop()!;
      for (const l of parts) {
        lines.push(l);
        const url = listeningUrl(l);
        if (url) {
          clearTimeout(timer);
          resolve({ name, child, url, api: new HttpClient(url, token), lines });
        }
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`replica ${name} exited ${code}:\n${lines.join('\n')}`)); });
  });
}

/** SIGKILL, then the process's end (at once when it has ended already). */
export async function killController(r: ControllerProcess | undefined): Promise<void> {
  if (!r || r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill('SIGKILL');
  await new Promise((x) => r.child.once('exit', x));
}
