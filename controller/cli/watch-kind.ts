import type { ApiClient } from './api-client.js';
import { out } from './command-context.js';
import { formatTable } from './format-table.js';
import { listKind, type KindView } from './kinds.js';
import type { OutputFormat } from './output.js';
import { readSse } from './sse-client.js';

/**
 * `get -w`: after the first listing, each item again whenever it changed, as kubectl get -w
 * does (table rows without the header, or one JSON line per item). The environment's event
 * stream says when to look; its 15 s heartbeat makes it look too, for changes without an event.
 */
export async function watchKind(api: ApiClient, view: KindView, env: string | undefined, nameArg: string | undefined,
  format: OutputFormat, first: any[], environmentId: string | undefined, selector?: string): Promise<void> {
  const shown = new Map(first.map((i) => [i.id ?? i.revision, JSON.stringify(i)]));
  const columns = view.columns.filter((c) => format === 'wide' || !c.wide);
  const look = async () => {
    const changed = (await listKind(api, view, env, nameArg, selector)).items.filter((i) => shown.get(i.id ?? i.revision) !== JSON.stringify(i));
    for (const i of changed) shown.set(i.id ?? i.revision, JSON.stringify(i));
    if (!changed.length) return;
    if (format === 'json' || format === 'yaml') for (const i of changed) out(`${JSON.stringify(i)}\n`);
    else out(formatTable(columns.map((c) => c.header), changed.map((i) => columns.map((c) => c.cell(i)))).split('\n').slice(1).join('\n'));
  };
  for (;;) await readSse(api, `/api/events${environmentId ? `?environmentId=${environmentId}` : ''}`, async () => { await look(); });
}
