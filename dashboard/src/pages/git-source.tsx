// The environment's Git source of manifests (docs/git-sources.md): its sync state, the applied
// commit, why the last attempt failed (every error at its file:line), Sync now and what the next
// sync would change (operators), and the source itself as a form drawn from the PUT's schema
// (admins; its token and deploy key write-only). Read again when a sync ends (the events).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, get, post } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { operations } from '../schema';
import { can, useSession } from '../session';
import { SchemaForm } from '../components/schema-form';
import { ErrorNote, when } from '../components/status';

const orNull = (err: unknown) => { if (err instanceof ApiError && err.status === 404) return null; throw err; };

const SYNC_TONE: Record<string, string> = { Synced: 'good', Failed: 'bad', OutOfSync: 'warn', Syncing: 'info' };

export function SyncBadge({ sync }: { sync: string }) {
  return <span class={`badge ${SYNC_TONE[sync] ?? 'muted'}`} data-sync={sync}>{sync === 'OutOfSync' ? 'Out of sync' : sync}</span>;
}

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : '—');

/** The status of a source in a few lines: state, applied commit, the last fetch, and the error of a failed attempt. */
export function GitSourceStatus({ status }: { status: any }) {
  const r = status.revision;
  const progressing = (status.conditions ?? []).find((c: any) => c.type === 'Progressing');
  return (
    <div class="git-status" data-testid="git-status">
      <p><SyncBadge sync={status.sync} /> <code>{status.url}</code>{status.ref && <> at <code>{status.ref}</code></>}{status.path && status.path !== '.' && <>, folder <code>{status.path}</code></>}</p>
      <p>Applied commit {r ? <><code title={r.commit} class="hash">{short(r.commit)}</code> “{r.message}” by {r.author}, {when(r.committedAt)}</> : 'none yet'}.
        {status.fetchedCommit && status.fetchedCommit !== r?.commit && <> Last fetched <code title={status.fetchedCommit} class="hash">{short(status.fetchedCommit)}</code>.</>}
        {' '}Last fetch {when(status.lastFetchAt)}.</p>
      {progressing?.status === 'True' && <p role="status" data-reason={progressing.reason}>{progressing.message}</p>}
      {status.error && <p class="error git-error" data-testid="git-error"><strong>Last sync failed:</strong> {status.error}</p>}
      {(status.errors ?? []).length > 0 && (
        <ul class="errors" aria-label="Errors of the commit">
          {status.errors.map((e: any) => <li><code>{e.file}:{e.line}:{e.column}</code> {e.path && <code>{e.path}</code>} {e.message}</li>)}
        </ul>
      )}
    </div>
  );
}

export function GitSourcePage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const { me } = useSession();
  const data = useLoad(async (signal) => {
    const base = `/api/environments/${envId}/manifests-source`;
    const [ops, source, status] = await Promise.all([
      operations(signal), get(base, signal).catch(orNull), get(`${base}/status`, signal).catch(orNull),
    ]);
    return { put: ops.get('putManifestsSource')!, source, status };
  }, [envId]);
  const action = useAction();
  const [diff, setDiff] = useState<any>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (e.type.startsWith('manifests.')) data.reload(); });
  // while a sync runs or is asked for (stored, waiting for its pass), read again until it ends
  // (the event says so too; this covers another replica's)
  const st = data.data?.status;
  const syncing = st?.sync === 'Syncing' || (!!st && st.observedGeneration !== st.generation);
  useEffect(() => {
    if (!syncing) return;
    const t = setInterval(() => data.reload(), 1000);
    return () => clearInterval(t);
  }, [syncing]);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { put, source, status } = data.data;
  const admin = can(me, 'admin');
  const operator = can(me, 'operator');
  const base = `/api/environments/${envId}/manifests-source`;
  return (
    <div class="git-source">
      {!source ? (
        <p>This environment follows no Git repository. {admin ? 'Set one below: its manifests are applied at once, then on every push or poll.' : 'An admin sets one here.'}</p>
      ) : (
        <section aria-labelledby="git-status-h">
          <h2 id="git-status-h">Status</h2>
          {status && <GitSourceStatus status={status} />}
          {operator && (
            <div class="actions">
              <button type="button" class="primary" disabled={action.busy || syncing} onClick={() => action.run(async () => {
                await post(`${base}/sync`, {});
                data.reload();
              })}>Sync now</button>
              <button type="button" disabled={action.busy} onClick={() => action.run(async () => { setDiff(null); setDiff(await get(`${base}/diff`)); })}>
                What would the next sync change?
              </button>
            </div>
          )}
          <ErrorNote error={action.error} />
          {diff && <SourceDiff diff={diff} />}
        </section>
      )}

      {admin && (
        <section aria-labelledby="git-form-h">
          <h2 id="git-form-h">{source ? 'The source' : 'Follow a Git repository'}</h2>
          {source && !editing ? (
            <>
              <dl class="spec">
                <dt>URL</dt><dd><code>{source.url}</code></dd>
                <dt>Ref</dt><dd>{source.ref ?? "the remote's HEAD"}</dd>
                <dt>Folder</dt><dd><code>{source.path}</code></dd>
                <dt>Poll</dt><dd>{source.pollIntervalSec ? `every ${source.pollIntervalSec} s` : 'webhook and manual syncs only'}</dd>
                <dt>Prune</dt><dd>{source.prune ? 'yes: what a commit no longer holds is deleted' : 'no'}</dd>
                <dt>Credentials</dt><dd>{[source.hasToken && 'token set', source.hasSshPrivateKey && 'deploy key set'].filter(Boolean).join(', ') || 'none'} (never shown)</dd>
              </dl>
              <div class="actions">
                <button type="button" onClick={() => setEditing(true)}>Edit the source</button>
                {confirming ? (
                  <>
                    <button type="button" class="danger" disabled={action.busy} onClick={() => action.run(async () => {
                      await api('DELETE', base);
                      setConfirming(false);
                      data.reload();
                    })}>Stop following it</button>
                    <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
                  </>
                ) : <button type="button" onClick={() => setConfirming(true)}>Stop following</button>}
              </div>
              {confirming && <p class="reason">What it applied stays, owned by no manifest.</p>}
            </>
          ) : (
            <SchemaForm key={JSON.stringify(source)} name="git-source" schema={put.body!} initial={source ?? undefined} replace
              submitLabel={source ? 'Save the source' : 'Follow this repository'} onCancel={source ? () => setEditing(false) : undefined}
              onSubmit={async (body) => {
                await api(put.method, base, body);
                setEditing(false);
                data.reload();
              }} />
          )}
        </section>
      )}
    </div>
  );
}

function SourceDiff({ diff }: { diff: any }) {
  return (
    <div class="preview" aria-live="polite" data-testid="git-diff">
      <h3>Commit <code class="hash">{short(diff.commit.commit)}</code> “{diff.commit.message}”: nothing was applied</h3>
      {!diff.ok ? (
        <ul class="errors">{diff.errors.map((e: any) => <li class="error"><code>{e.file}:{e.line}:{e.column}</code> {e.message}</li>)}</ul>
      ) : diff.changes.length ? (
        <ul>
          {diff.changes.map((c: any) => (
            <li><strong>{c.action}</strong> {c.kind} {c.name} <span class="reason">({c.path})</span>
              {c.fields?.length > 0 && <span class="reason"> {c.fields.map((f: any) => f.field).join(', ')}</span>}
            </li>
          ))}
        </ul>
      ) : <p>Nothing would change: the store holds this commit.</p>}
    </div>
  );
}
