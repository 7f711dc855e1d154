// The agent lives under /opt and may install a systemd unit: root's work. A login that is not
// root runs the same argv through `sudo -n` (never prompting), as bootstrap and swap do.
import { asRoot, userId } from '../../hosts/commands/bootstrap.js';
import type { Services } from '../../services.js';
import type { ServerRow } from '../../store/repositories/servers.js';

export async function asServerUser(s: Services, server: ServerRow, argv: string[]): Promise<string[]> {
  if (server.sshUser === 'root') return argv;
  const root = (await s.hosts.exec(server.id, userId(), { timeoutMs: 15_000 })).stdout.trim() === '0';
  return asRoot(root, argv);
}
