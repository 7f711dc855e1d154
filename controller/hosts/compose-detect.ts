// Which compose a server has, asked once per server: the v2 plugin (`docker compose`) is preferred,
// the v1 binary (`docker-compose`) is the fallback. The answer is cached for the process lifetime
// because installing compose on a managed server is rare and costs one call to notice (forget()).
import { composePluginVersion, composeStandaloneVersion, type ComposeFlavor } from './commands/compose.js';
import { CommandFailed } from './errors.js';
import type { SshDriver } from './ssh-driver.js';

export class ComposeNotInstalled extends CommandFailed {}

export class ComposeDetector {
  private readonly cache = new Map<string, Promise<ComposeFlavor>>();
  constructor(private readonly driver: SshDriver) {}

  flavor(serverId: string): Promise<ComposeFlavor> {
    let found = this.cache.get(serverId);
    if (!found) {
      found = this.detect(serverId);
      this.cache.set(serverId, found);
      // unreachable hosts are not an answer: do not cache failures
      found.catch(() => this.cache.delete(serverId));
    }
    return found;
  }

  forget(serverId: string): void {
    this.cache.delete(serverId);
  }

  private async detect(serverId: string): Promise<ComposeFlavor> {
    const plugin = await this.driver.exec(serverId, composePluginVersion(), { check: false, timeoutMs: 15_000 });
    if (plugin.code === 0) return 'plugin';
    const standalone = await this.driver.exec(serverId, composeStandaloneVersion(), { check: false, timeoutMs: 15_000 });
    if (standalone.code === 0) return 'standalone';
    throw new ComposeNotInstalled(serverId, 'docker compose version / docker-compose version', standalone.code,
      `neither docker compose nor docker-compose works:\n${plugin.stderr}\n${standalone.stderr}`);
  }
}
