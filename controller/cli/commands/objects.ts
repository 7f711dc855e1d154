import type { Command } from 'commander';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { CliError, UsageError } from '../cli-error.js';
import { contextOf, envOption, out } from '../command-context.js';
import { labelOf, oneOf } from '../kinds.js';

/** `delete KIND NAME`: the kind's DELETE route (a manifest's object is refused, 409, naming the file). */
async function deleteObject(kind: string, name: string, _o: unknown, cmd: Command): Promise<void> {
  const { api, environment } = contextOf(cmd);
  const { kindName, view, item } = await oneOf(api, kind, environment, name, 'delete');
  await api.request('DELETE', `/api/${view.item}/${item.id}`);
  out(`${labelOf(kindName, item)} deleted\n`);
}

/** The top-level fields the edit changed (a field taken out is left as it was: set it to null to clear it). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(after).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
}

/** The editor as $VISUAL or $EDITOR names it (words split on blanks, as `code --wait`), never through a shell. */
function runEditor(file: string): void {
  const words = (process.env.VISUAL || process.env.EDITOR || 'vi').trim().split(/\s+/);
  const r = spawnSync(words[0], [...words.slice(1), file], { stdio: 'inherit' });
  if (r.error) throw new CliError(`cannot start the editor ${words[0]}: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message} (set EDITOR)`);
  if (r.status !== 0) throw new CliError(`the editor ${words[0]} exited ${r.status ?? r.signal}; nothing changed`);
}

const HEADER = (label: string) => [
  `# Edit ${label} and save; an unchanged file changes nothing.`,
  '# The fields you change are sent as one PATCH, validated as the API validates any; read-only fields are refused.',
  '',
].join('\n');

/**
 * `edit KIND NAME`: the object's read as YAML in $EDITOR, then the fields that changed as one
 * PATCH, so the API's validation and its manifest-ownership check decide. An unchanged file is
 * a no-op; an invalid one (YAML or refused by the API) changes nothing and the edit is kept in
 * a file named in the error, as kubectl edit keeps it.
 */
async function editObject(kind: string, name: string, _o: unknown, cmd: Command): Promise<void> {
  const { api, environment } = contextOf(cmd);
  const { kindName, view, item } = await oneOf(api, kind, environment, name, 'edit');
  const before = await api.get<Record<string, unknown>>(`/api/${view.item}/${item.id}`);
  const label = labelOf(kindName, item);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-edit-'));
  const file = path.join(dir, `${label.replace('/', '-')}.yaml`);
  fs.writeFileSync(file, HEADER(label) + YAML.stringify(before), { mode: 0o600 });
  let keep = false;
  try {
    runEditor(file);
    let after: unknown;
    try {
      after = YAML.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      keep = true;
      throw new CliError(`${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}; nothing changed, the edit is kept there`);
    }
    if (!after || typeof after !== 'object' || Array.isArray(after)) {
      keep = true;
      throw new CliError(`${file}: expected the object's fields (a YAML mapping); nothing changed, the edit is kept there`);
    }
    const changes = changedFields(before, after as Record<string, unknown>);
    if (!Object.keys(changes).length) {
      out(`${label} unchanged\n`);
      return;
    }
    try {
      await api.request('PATCH', `/api/${view.item}/${item.id}`, changes);
    } catch (e) {
      keep = true;
      throw new CliError(`${(e as Error).message}; nothing changed, the edit is kept in ${file}`);
    }
    out(`${label} edited (${Object.keys(changes).join(', ')})\n`);
  } finally {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `disown KIND NAME`: POST /api/{kind}/{id}/disown; the API refuses what a Git source or the watched folder applies. */
async function disownObject(kind: string, name: string, _o: unknown, cmd: Command): Promise<void> {
  const { api, environment } = contextOf(cmd);
  if (/^env/.test(kind)) throw new UsageError('disown reaches the objects of an environment (services, servers, vars, secrets, config-files, registries, images, databases), not environments');
  const { kindName, view, item } = await oneOf(api, kind, environment, name, 'disown');
  const r = await api.post<{ manifest: string; fields: string[] }>(`/api/${view.item}/${item.id}/disown`);
  out(`${labelOf(kindName, item)} released from the manifest ${r.manifest}${r.fields.length ? ` (${r.fields.join(', ')})` : ''}: the API manages it now\n`);
}

export function registerObjectCommands(program: Command): void {
  program.command('delete').argument('<kind>', 'service, server, var, secret, config-file, registry, image, database or environment').argument('<name>', 'its name (a var\'s or secret\'s key) or id')
    .description('delete an object (refused while a manifest declares it)')
    .addOption(envOption())
    .action(deleteObject);
  program.command('edit').argument('<kind>', 'service, server, var, secret, config-file, registry, image, database or environment').argument('<name>', 'its name (a var\'s or secret\'s key) or id')
    .description('edit an object\'s fields in $EDITOR; the changed ones are sent as one PATCH (unchanged: nothing happens)')
    .addOption(envOption())
    .action(editObject);
  program.command('disown').argument('<kind>', 'service, server, var, secret, config-file, registry, image or database').argument('<name>', 'its name (a var\'s or secret\'s key) or id')
    .description('release an object from the manifest that set it, so the API (deploy --tag, PATCH, delete) may change it (admin; audited)')
    .addOption(envOption())
    .action(disownObject);
}
