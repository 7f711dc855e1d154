// Live swap add: a swap file made and switched on at once (no reboot) and kept in /etc/fstab.
import type { Services } from '../services.js';
import type { ServerRow } from '../store/repositories/servers.js';
import { AppError, conflict } from '../errors/app-error.js';
import { addSwapFile, asRoot, showSwap, userId } from '../hosts/commands/bootstrap.js';

export interface SwapArea { name: string; type: string; sizeBytes: number; usedBytes: number }

export function parseSwapShow(text: string): SwapArea[] {
  return text.split('\n').map((l) => l.trim().split(/\s+/)).filter((p) => p.length >= 4)
    .map(([name, type, size, used]) => ({ name, type, sizeBytes: Number(size), usedBytes: Number(used) }));
}

export async function swapOf(s: Services, server: ServerRow): Promise<SwapArea[]> {
  const res = await s.hosts.exec(server.id, showSwap(), { check: false, timeoutMs: 15_000 });
  return res.code === 0 ? parseSwapShow(res.stdout) : [];
}

/**
 * Adds swap to a running server. dryRun answers the commands it would run and the swap now,
 * changing nothing. The path must not exist yet: an existing file is never overwritten.
 */
export async function addSwap(s: Services, server: ServerRow, o: { path: string; sizeMb: number; dryRun: boolean }) {
  if (server.dockerMode === 'socket') throw conflict('A socket-mode server is the controller\'s own machine: add swap there by hand');
  const root = (await s.hosts.exec(server.id, userId(), { timeoutMs: 15_000 })).stdout.trim() === '0';
  const commands = addSwapFile(o.path, o.sizeMb).map((c) => asRoot(root, c));
  const before = await swapOf(s, server);
  if (before.some((a) => a.name === o.path)) throw conflict(`${o.path} is already in use as swap`);
  if (o.dryRun) return { serverId: server.id, dryRun: true, commands, swap: before };
  for (const [i, argv] of commands.entries()) {
    const res = await s.hosts.exec(server.id, argv, { check: false, timeoutMs: 10 * 60_000 });
    if (res.code !== 0) {
      const why = i === 0 ? `${o.path} already exists` : `${argv.join(' ')} exited with ${res.code}: ${(res.stderr || res.stdout).trim().slice(-500)}`;
      throw new AppError(i === 0 ? 'CONFLICT' : 'SERVICE_UNAVAILABLE', `Adding swap failed: ${why}`, { status: i === 0 ? 409 : 502 });
    }
  }
  return { serverId: server.id, dryRun: false, commands, swap: await swapOf(s, server) };
}
