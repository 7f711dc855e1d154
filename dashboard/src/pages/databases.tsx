// Databases and their backups: back up now, download a backup, restore it (into a scratch
// container, or into the database after typing its name), and the restore drills' results.
import { useState } from 'preact/hooks';
import { api, authHeaders, get, listAll, post } from '../api';
import { useAction, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { ErrorNote, when } from '../components/status';
import { SchemaForm } from '../components/schema-form';
import { fillPath, operations } from '../schema';
import { Resources } from './resources';
import { KIND_VIEWS, type KindView } from '../kinds';

const TONE: Record<string, string> = { succeeded: 'good', failed: 'bad', running: 'info' };
const Status = ({ status }: { status: string }) => <span class={`badge ${TONE[status] ?? 'muted'}`} data-status={status}>{status}</span>;
const size = (n: number | null) => (n === null ? '—' : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** The databases (create, edit, delete, test), then one database's backups, drills and their schedules. */
export function DatabasesPage({ params }: { params: Record<string, string> }) {
  const [version, setVersion] = useState(0);
  return (
    <>
      <Resources view={KIND_VIEWS.find((v) => v.key === 'databases') as KindView} envId={params.envId} onChanged={() => setVersion((n) => n + 1)} />
      <h2>Backups and restore drills</h2>
      <Backups key={version} params={params} />
    </>
  );
}

function Backups({ params }: { params: Record<string, string> }) {
  const list = useLoad((signal) => listAll(`/api/environments/${params.envId}/databases`, signal), [params.envId]);
  const [selected, setSelected] = useState<string | null>(null);
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.data) return <p role="status">Loading…</p>;
  if (!list.data.length) return <p>No database yet: nothing to back up.</p>;
  return (
    <div class="split">
      <nav aria-label="Databases">
        <ul class="plain">
          {list.data.map((d: any) => (
            <li><button type="button" class="link" aria-pressed={selected === d.id} onClick={() => setSelected(d.id)}>{d.name}</button> <span class="reason">{d.type}</span></li>
          ))}
        </ul>
      </nav>
      {selected ? <Database key={selected} database={list.data.find((d: any) => d.id === selected)} /> : <p>Choose a database to see its backups.</p>}
    </div>
  );
}

function Database({ database }: { database: any }) {
  const { me } = useSession();
  const operator = can(me, 'operator');
  const data = useLoad(async (signal) => {
    const [backups, drills] = await Promise.all([
      get(`/api/databases/${database.id}/backups?limit=50`, signal),
      get(`/api/databases/${database.id}/restore-drills?limit=10`, signal),
    ]);
    return { backups: backups.items as any[], drills: drills.items as any[] };
  }, [database.id]);
  const action = useAction();
  const [started, setStarted] = useState<string | null>(null);
  const run = (what: string, fn: () => Promise<unknown>) => action.run(async () => { setStarted(null); await fn(); setStarted(what); data.reload(); });
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { backups, drills } = data.data;
  return (
    <section aria-labelledby="db-h">
      <h2 id="db-h">{database.name}</h2>
      <p class="reason">{database.type} database <code>{database.databaseName}</code>{database.containerName && <> in container <code>{database.containerName}</code></>}</p>
      {operator && (
        <div class="actions">
          <button type="button" disabled={action.busy} onClick={() => run('Backup started', () => post(`/api/databases/${database.id}/backups`, {}))}>Back up now</button>
          <button type="button" disabled={action.busy} onClick={() => run('Restore drill started', () => post(`/api/databases/${database.id}/restore-drill/run`, {}))}>Run a restore drill</button>
          <button type="button" class="link" onClick={data.reload}>Refresh</button>
        </div>
      )}
      <p aria-live="polite">{started}</p>
      <ErrorNote error={action.error} />

      {operator && (
        <div class="columns">
          <Schedule database={database} title="Backup schedule" get="/backup-schedule" op="setBackupSchedule" />
          <Schedule database={database} title="Backup retention" get="/backup-retention" op="setBackupRetention" />
          <Schedule database={database} title="Restore drill schedule" get="/restore-drill" op="setRestoreDrill" />
        </div>
      )}

      <h3>Backups</h3>
      {backups.length ? (
        <table>
          <thead><tr><th scope="col">Started</th><th scope="col">Status</th><th scope="col">Trigger</th><th scope="col">Size</th>{operator && <th scope="col">Actions</th>}</tr></thead>
          <tbody>
            {backups.map((b) => (
              <tr data-backup={b.id}>
                <th scope="row">{when(b.startedAt)}</th>
                <td><Status status={b.status} />{b.pinned && ' pinned'} {b.error && <span class="error">{b.error}</span>}</td>
                <td>{b.trigger}</td><td>{size(b.sizeBytes)}</td>
                {operator && <td>{b.status === 'succeeded' && <BackupActions backup={b} database={database} run={run} busy={action.busy} />}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      ) : <p>No backup yet.</p>}

      <h3>Restore drills</h3>
      {drills.length ? (
        <table>
          <thead><tr><th scope="col">Started</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Check</th></tr></thead>
          <tbody>
            {drills.map((r) => (
              <tr data-drill={r.id}>
                <th scope="row">{when(r.startedAt)}</th><td><Status status={r.status} /></td>
                <td>{r.durationMs === null ? '—' : `${(r.durationMs / 1000).toFixed(1)} s`}</td>
                <td>{r.error ? <span class="error">{r.error}</span> : <code class="details">{r.checkOutput ?? '—'}</code>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <p>No restore drill yet.</p>}
    </section>
  );
}

function BackupActions({ backup, database, run, busy }: { backup: any; database: any; run(what: string, fn: () => Promise<unknown>): void; busy: boolean }) {
  const [confirm, setConfirm] = useState('');
  const label = when(backup.startedAt);
  return (
    <div class="actions">
      <button type="button" disabled={busy} onClick={() => run('Downloaded', () => download(backup))}>Download<span class="sr-only"> the backup of {label}</span></button>
      <button type="button" disabled={busy} onClick={() => run('Restore into a scratch container started', () => post(`/api/backups/${backup.id}/restore`, { target: 'scratch' }))}>
        Restore to scratch<span class="sr-only"> the backup of {label}</span>
      </button>
      <form class="inline" onSubmit={(e) => { e.preventDefault(); run('Restore started', () => post(`/api/backups/${backup.id}/restore`, { target: 'database', confirm })); }}>
        <label>Type <code>{database.name}</code> to restore over it <input value={confirm} onInput={(e) => setConfirm((e.target as HTMLInputElement).value)} /></label>
        <button type="submit" class="danger" disabled={busy || confirm !== database.name}>Restore<span class="sr-only"> the backup of {label}</span></button>
      </form>
    </div>
  );
}

// a link cannot send the Authorization header: the file is fetched, then handed to the browser
async function download(backup: any) {
  const res = await fetch(`/api/backups/${backup.id}/download`, { headers: authHeaders() });
  if (!res.ok) throw new Error(`download failed: ${res.status} ${res.statusText}`);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? `backup-${backup.id}.gz`;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** One of a database's schedules as the form of its PUT, filled in with what GET answers. */
function Schedule({ database, title, get: path, op }: { database: any; title: string; get: string; op: string }) {
  const data = useLoad(async (signal) => {
    const [ops, current] = await Promise.all([operations(signal), get(`/api/databases/${database.id}${path}`, signal)]);
    return { op: ops.get(op)!, current };
  }, [database.id]);
  if (!data.data) return <ErrorNote error={data.error} />;
  const { op: put, current } = data.data;
  const initial = Object.fromEntries(Object.keys(put.body?.properties ?? {}).map((k) => [k, current[k] ?? null]));
  return (
    <section class="panel" aria-label={`${title} of ${database.name}`}>
      <h3>{title}</h3>
      <SchemaForm key={JSON.stringify(current)} name={`${op}-${database.name}`} schema={put.body!} initial={initial} replace submitLabel={`Save ${title.toLowerCase()}`}
        onSubmit={async (body) => { await api(put.method, fillPath(put.path, { id: database.id }), body); data.reload(); }} />
    </section>
  );
}
