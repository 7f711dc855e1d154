// One page for any kind of kinds.ts: its objects as a table, and, for a role the API would accept,
// a form to create one, an edit form and a delete per row, and the kind's own actions (test a
// connection). The forms are drawn from the API's schemas for those operations.
import { useState } from 'preact/hooks';
import { api, listAll } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { Link } from '../router';
import { fillPath, operations, type Operation, type Schema } from '../schema';
import { can, useSession, type Me } from '../session';
import { REFERENCES, type KindView } from '../kinds';
import { SchemaForm, type Option } from '../components/schema-form';
import { ErrorNote } from '../components/status';
import { MANIFEST_FIELD } from '../../../controller/manifests/owned-fields';

export interface KindOps {
  list: Operation; create?: Operation; update?: Operation; remove?: Operation; writeOnly: string[];
  /** Whether its objects say where they come from (`source`): a manifest may declare them. */
  declarable: boolean;
}

/** The operations of a kind, and its write-only fields: those its bodies take but its reads never answer. */
export async function kindOps(view: Pick<KindView, 'list' | 'create' | 'update' | 'remove'>, signal?: AbortSignal): Promise<KindOps> {
  const ops = await operations(signal);
  const op = (id?: string) => (id ? ops.get(id) : undefined);
  const list = op(view.list)!;
  const read = list.response?.properties?.items?.items?.properties ?? {};
  const create = op(view.create), update = op(view.update);
  const written = new Set([...Object.keys(create?.body?.properties ?? {}), ...Object.keys(update?.body?.properties ?? {})]);
  return { list, create, update, remove: op(view.remove), writeOnly: [...written].filter((f) => !(f in read)), declarable: 'source' in read };
}

/** Choices for the fields of `schemas` that name other objects (REFERENCES). */
export async function referenceOptions(schemas: Array<Schema | undefined>, envId: string, me: Me, signal: AbortSignal): Promise<Record<string, Option[]>> {
  const fields = new Set(schemas.flatMap((s) => Object.keys(s?.properties ?? {})).filter((f) => REFERENCES[f]));
  const entries = await Promise.all([...fields].map(async (f) => [f, await REFERENCES[f](envId, me, signal).catch(() => [])] as const));
  return Object.fromEntries(entries);
}

/** Fields of `item` a manifest owns, by API field name, with the manifest's file. */
export function ownedBy(item: any): Record<string, string> {
  const src = item?.source;
  if (!src || src.kind !== 'manifest' || !src.path) return {};
  const owned = new Set<string>(src.fields ?? []);
  const byApiName: Record<string, string> = {};
  for (const f of owned) byApiName[f] = src.path;
  for (const [api, manifest] of Object.entries(MANIFEST_FIELD)) if (owned.has(manifest)) byApiName[api] = src.path;
  return byApiName;
}

const path = (op: Operation, params: Record<string, string>) => fillPath(op.path, params);

export function resourcePage(view: KindView) {
  return function ResourcePage({ params }: { params: Record<string, string> }) {
    return <Resources key={`${view.key}/${params.envId}`} view={view} envId={params.envId} />;
  };
}

/** A kind's objects with their forms; `onChanged` hears of each create, edit and delete made here. */
export function Resources({ view, envId, onChanged }: { view: KindView; envId: string; onChanged?(): void }) {
  const { me } = useSession();
  const editor = can(me, view.editRole ?? 'operator');
  const creator = editor && (!view.createRole || can(me, view.createRole));
  const data = useLoad(async (signal) => {
    const ops = await kindOps(view, signal);
    const [items, options] = await Promise.all([
      listAll(path(ops.list, { envId }) + (view.listQuery?.(me) ?? ''), signal),
      editor ? referenceOptions([ops.create?.body, ops.update?.body], envId, me, signal) : Promise.resolve({}),
    ]);
    return { ops, items, options };
  }, [envId]);
  const changed = () => { data.reload(); onChanged?.(); };
  const [creating, setCreating] = useState(false);
  const [once, setOnce] = useState<string | null>(null);
  // the list follows what happens in the environment (a manifest apply, another user's change)
  useEvents(envId ? `/api/events?environmentId=${envId}` : null, (e) => { if (e.type !== 'plan.step') data.reload(); });
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { ops, items, options } = data.data;
  return (
    <div class="resources" data-kind={view.key}>
      {creator && ops.create && (creating ? (
        <section aria-labelledby={`${view.key}-create-h`} class="panel">
          <h2 id={`${view.key}-create-h`}>New {view.noun}</h2>
          {view.createForm ? view.createForm(() => { setCreating(false); changed(); }) : <SchemaForm name={`create-${view.key}`} schema={ops.create.body!} omit={view.omit} writeOnly={ops.writeOnly} options={options}
            submitLabel={`Create ${view.noun}`} onCancel={() => setCreating(false)}
            onSubmit={async (body) => {
              const created = await api(ops.create!.method, path(ops.create!, { envId }), body);
              if (view.shownOnce && created?.[view.shownOnce]) setOnce(created[view.shownOnce]);
              setCreating(false);
              changed();
            }} />}
        </section>
      ) : <div class="actions"><button type="button" class="primary" onClick={() => { setOnce(null); setCreating(true); }}>New {view.noun}</button></div>)}
      {once && (
        <section aria-labelledby={`${view.key}-once-h`} class="panel">
          <h2 id={`${view.key}-once-h`}>Copy it now: it is shown only once</h2>
          <pre data-testid="shown-once">{once}</pre>
          <button type="button" onClick={() => setOnce(null)}>I have copied it</button>
        </section>
      )}
      <h2 class="sr-only">{view.title} list</h2>
      {items.length ? (
        <table class="stack">
          <thead><tr><th scope="col">Name</th>{view.columns.map((c) => <th scope="col">{c.label}</th>)}{ops.declarable && <th scope="col">Managed by</th>}{editor && <th scope="col">Actions</th>}</tr></thead>
          <tbody>
            {items.map((item: any) => (
              <Row key={item.id} view={view} envId={envId} me={me} item={item} ops={ops} options={options} editor={editor} reload={changed} />
            ))}
          </tbody>
        </table>
      ) : <EmptyList view={view} envId={envId} ops={ops} options={options} editor={creator} />}
    </div>
  );
}

/** Pages of the objects a required reference names: a service needs an image first. */
const NEEDS: Record<string, { key: string; noun: string }> = {
  containerImageId: { key: 'images', noun: 'an image' }, serverId: { key: 'servers', noun: 'a server' },
};

/** An empty list says how to go on: New above, and first what a new object needs and none exists of. */
function EmptyList({ view, envId, ops, options, editor }: { view: KindView; envId: string; ops: KindOps; options: Record<string, Option[]>; editor: boolean }) {
  const missing = (ops.create?.body?.required ?? []).filter((f) => NEEDS[f] && options[f] && !options[f].length);
  return (
    <p data-empty={view.key}>No {view.noun} yet.
      {editor && ops.create && (missing.length
        ? <> A {view.noun} needs {missing.map((f, i) => <>{i ? ' and ' : ''}<Link href={`/env/${envId}/${NEEDS[f].key}`}>{NEEDS[f].noun}</Link></>)} first.</>
        : ` New ${view.noun} creates the first.`)}
    </p>
  );
}

function Row({ view, envId, me, item, ops, options, editor, reload }: {
  view: KindView; envId: string; me: Me; item: any; ops: KindOps; options: Record<string, Option[]>; editor: boolean; reload(): void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [asking, setAsking] = useState<string | null>(null);
  const [prepared, setPrepared] = useState<any>(null);
  const [said, setSaid] = useState<string | null>(null);
  const action = useAction();
  const name = view.name(item);
  const owned = ownedBy(item);
  const manifest = item.source?.kind === 'manifest' ? item.source.path as string : null;
  const cols = view.columns.length + 1 + (ops.declarable ? 1 : 0) + (editor ? 1 : 0);
  return (
    <>
      <tr data-item={name}>
        <th scope="row" data-label="Name">{view.href ? <Link href={view.href(envId, item)}>{name}</Link> : name}</th>
        {view.columns.map((c) => <td data-label={c.label}>{c.cell(item)}</td>)}
        {ops.declarable && <td data-label="Managed by">{manifest ? <>manifest <code>{manifest}</code></> : 'API'}</td>}
        {editor && (
          <td data-label="Actions">
            <div class="actions">
              {ops.update && <button type="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>Edit<span class="sr-only"> {name}</span></button>}
              {(view.actions ?? []).filter((a) => (!a.role || can(me, a.role)) && (!a.when || a.when(item))).map((a) => {
                const run = () => action.run(async () => {
                  setSaid(null);
                  const op = (await operations()).get(a.op)!;
                  const body = typeof a.body === 'function' ? a.body(item, prepared) : a.body;
                  setSaid(a.says(await api(op.method, fillPath(op.path, { id: item.id, envId }), body ?? (op.body ? {} : undefined))));
                  setAsking(null);
                  if (a.confirm) reload();
                });
                if (!a.confirm) return <button type="button" disabled={action.busy} onClick={run}>{a.label}<span class="sr-only"> {name}</span></button>;
                const ask = () => action.run(async () => {
                  setSaid(null);
                  if (a.prepare) {
                    const op = (await operations()).get(a.prepare)!;
                    setPrepared(await api(op.method, fillPath(op.path, { id: item.id, envId }), op.body ? {} : undefined));
                  }
                  setAsking(a.label);
                });
                const offered = asking === a.label && (!a.offered || a.offered(prepared));
                return asking === a.label ? (
                  <div role="group" aria-label={`${a.label} ${name}`} class="confirm">
                    <p>{a.confirm(item, prepared)}</p>
                    {offered && <button type="button" class="danger" disabled={action.busy} onClick={run}>{a.confirmLabel ?? a.label}</button>}
                    <button type="button" onClick={() => setAsking(null)}>{offered ? 'Keep it' : 'Close'}</button>
                  </div>
                ) : <button type="button" disabled={action.busy} onClick={ask}>{a.label}<span class="sr-only"> {name}</span></button>;
              })}
              {ops.remove && !manifest && (confirming ? (
                <>
                  <button type="button" class="danger" disabled={action.busy} onClick={() => action.run(async () => {
                    await api(ops.remove!.method, path(ops.remove!, { id: item.id, envId }));
                    reload();
                  })}>Delete {name} for good</button>
                  <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
                </>
              ) : <button type="button" onClick={() => setConfirming(true)}>Delete<span class="sr-only"> {name}</span></button>)}
            </div>
            {said && <p role="status" class="said">{said}</p>}
            <ErrorNote error={action.error} />
          </td>
        )}
      </tr>
      {editing && ops.update && (
        <tr class="editing">
          <td colSpan={cols}>
            <SchemaForm name={`edit-${view.key}-${name}`} schema={ops.update.body!} initial={item} omit={view.omit} writeOnly={ops.writeOnly}
              owned={owned} options={options} submitLabel={`Save ${name}`} onCancel={() => setEditing(false)}
              onSubmit={async (body) => {
                await api(ops.update!.method, path(ops.update!, { id: item.id, envId }), body);
                setEditing(false);
                reload();
              }} />
          </td>
        </tr>
      )}
    </>
  );
}
