// SSH metrics collection of one server: one batched read over the pooled connection, parsed by
// parse-metrics.ts. CPU is the busy share since the previous reading of the same server (kept
// here, in memory), so every reading covers the whole interval instead of a sub-second glimpse;
// the first one after start-up reads /proc/stat twice, half a second apart, to carry CPU too.
import type { HostAccess } from '../hosts/host-access.js';
import { dockerRootDir, readMetrics } from '../hosts/commands/metrics.js';
import type { ServerRow } from '../store/repositories/servers.js';
import { parseMetrics, type CpuReading } from './parse-metrics.js';
import { sectionsFor, type MetricsToggles } from './metrics-toggles.js';
import type { ServerSample } from './server-sample.js';

const DEFAULT_DOCKER_ROOT = '/var/lib/docker';

export class SshCollector {
  private readonly cpu = new Map<string, CpuReading>();
  /** Docker's data root per server, asked once (it changes only with a daemon reconfiguration). */
  private readonly dockerRoots = new Map<string, string>();

  constructor(private readonly hosts: Pick<HostAccess, 'exec'>) {}

  /** A sample of the server, or null when its environment collects nothing. Throws when the server cannot be reached. */
  async collect(server: Pick<ServerRow, 'id'>, toggles: MetricsToggles, timeoutMs: number): Promise<ServerSample | null> {
    const sections = sectionsFor(toggles);
    if (sections.length === 0) return null;
    const at = new Date();
    const root = sections.includes('df') ? await this.dockerRoot(server.id, timeoutMs) : DEFAULT_DOCKER_ROOT;
    const res = await this.hosts.exec(server.id, readMetrics(sections, root, { firstCpu: !this.cpu.has(server.id) }), { timeoutMs, check: false });
    const parsed = parseMetrics(res.stdout, toggles, this.cpu.get(server.id));
    if (parsed.cpu) this.cpu.set(server.id, parsed.cpu);
    return { serverId: server.id, at, source: 'ssh', ...parsed.values };
  }

  /** Forgets servers no longer collected (deleted, or switched to another mode). */
  retain(serverIds: Set<string>): void {
    for (const m of [this.cpu, this.dockerRoots]) for (const id of m.keys()) if (!serverIds.has(id)) m.delete(id);
  }

  private async dockerRoot(serverId: string, timeoutMs: number): Promise<string> {
    const known = this.dockerRoots.get(serverId);
    if (known) return known;
    const res = await this.hosts.exec(serverId, dockerRootDir(), { timeoutMs, check: false });
    const dir = res.stdout.trim();
    // a daemon that does not answer: measure the default place now, ask again next time
    if (res.code !== 0 || !dir.startsWith('/')) return DEFAULT_DOCKER_ROOT;
    this.dockerRoots.set(serverId, dir);
    return dir;
  }
}
