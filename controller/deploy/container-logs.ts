// Container logs through the Docker API. Non-TTY containers multiplex stdout and stderr in 8-byte
// framed chunks; these are split back into lines with their stream name.
import { PassThrough, type Readable } from 'node:stream';
import type Docker from 'dockerode';

export interface LogLine { stream: 'stdout' | 'stderr'; line: string }

/** Splits a multiplexed Docker log buffer into lines. */
export function demuxLogs(buf: Buffer): LogLine[] {
  const out: LogLine[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const kind = buf[i];
    const size = buf.readUInt32BE(i + 4);
    const chunk = buf.subarray(i + 8, i + 8 + size).toString('utf8');
    const stream = kind === 2 ? 'stderr' : 'stdout';
    for (const line of chunk.split('\n')) if (line !== '') out.push({ stream, line });
    i += 8 + size;
  }
  return out;
}

/** `sinceSec`: only lines of the last N seconds (Docker's `since`, a Unix time by the controller's clock). */
const sinceOf = (sinceSec?: number) => (sinceSec ? { since: Math.floor(Date.now() / 1000) - sinceSec } : {});

export async function fetchLogs(docker: Docker, containerName: string, tail: number, sinceSec?: number): Promise<LogLine[]> {
  const buf = (await docker.getContainer(containerName).logs({ stdout: true, stderr: true, tail, follow: false, ...sinceOf(sinceSec) })) as unknown as Buffer;
  return demuxLogs(Buffer.isBuffer(buf) ? buf : Buffer.from(buf));
}

/** Follows the container's output; `onLine` per line; returns a function that stops it. */
export async function followLogs(docker: Docker, containerName: string, tail: number, onLine: (l: LogLine) => void, sinceSec?: number): Promise<() => void> {
  const raw = (await docker.getContainer(containerName).logs({ stdout: true, stderr: true, tail, follow: true, ...sinceOf(sinceSec) })) as unknown as Readable;
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  docker.modem.demuxStream(raw, streams.stdout, streams.stderr);
  for (const name of ['stdout', 'stderr'] as const) {
    let rest = '';
    streams[name].on('data', (d: Buffer) => {
      const parts = (rest + d.toString('utf8')).split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) if (line !== '') onLine({ stream: name, line });
    });
  }
  return () => (raw as Readable & { destroy(): void }).destroy();
}
