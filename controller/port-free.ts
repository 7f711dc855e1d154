import net from 'node:net';
import { ConfigError } from './config/parse-env.js';

const inUse = (port: number, host: string) =>
  new ConfigError(`cannot listen on ${host}:${port}: the port is already in use (another stevedore serve?); set PORT to a free port`);

/**
 * Fails at once, before the embedded PostgreSQL starts and the migrations run, when the port is
 * taken: a second `npm start` used to start both and only then die on EADDRINUSE with a stack
 * (issue 28). The port is tried and released; `listenError` words the rare loss of the race.
 */
export async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? inUse(port, host) : e));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

export const listenError = (e: NodeJS.ErrnoException, port: number, host: string): Error => (e.code === 'EADDRINUSE' ? inUse(port, host) : e);
