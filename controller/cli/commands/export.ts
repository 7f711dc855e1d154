import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { contextOf, envOption, out } from '../command-context.js';
import { environmentOf, itemOf } from '../resolve.js';

/**
 * `export [-e ENV] [--server NAME] [-f FILE]`: the environment as manifests, or with --server the
 * containers running there that no service owns yet, each adopted as it runs by its container id
 * (GET /api/environments/{envId}/manifests/export; docs/git-sources.md). Secret values are never
 * in it: secrets are SOPS placeholders to fill in and encrypt before committing.
 */
async function exportManifests(opts: { server?: string; file?: string }, cmd: Command): Promise<void> {
  const c = contextOf(cmd);
  const env = await environmentOf(c.api, c.environment);
  const server = opts.server ? await itemOf(c.api, env.id, 'servers', opts.server, 'server') : null;
  const yaml = await c.api.text(`/api/environments/${env.id}/manifests/export${server ? `?serverId=${server.id}` : ''}`);
  if (opts.file) {
    writeFileSync(opts.file, yaml, { mode: 0o644 });
    process.stderr.write(`wrote ${opts.file}\n`);
  } else out(yaml);
}

export function registerExportCommands(program: Command): void {
  program.command('export').description('write an environment, or a server\'s containers no service owns yet, as manifests ready to commit (admin)')
    .addOption(envOption())
    .option('--server <server>', 'the running containers of this server (name or id) that no service owns, adopted as they run')
    .option('-f, --file <file>', 'write the YAML to this file instead of stdout')
    .action(exportManifests);
}
