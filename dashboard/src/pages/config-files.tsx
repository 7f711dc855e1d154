// Config files: the rendered preview with secrets redacted, and the diff per server before a sync.
import { useState } from 'preact/hooks';
import { get, listAll, post } from '../api';
import { useAction, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { ErrorNote } from '../components/status';
import { Resources } from './resources';
import { KIND_VIEWS, type KindView } from '../kinds';

const view = (key: string) => KIND_VIEWS.find((v) => v.key === key) as KindView;

/** The files and fragments (create, edit, delete), then a file's rendered preview and its sync. */
export function ConfigFilesPage({ params }: { params: Record<string, string> }) {
  const [version, setVersion] = useState(0);
  return (
    <>
      <section aria-labelledby="files-h"><h2 id="files-h">Files</h2><Resources view={view('config-files')} envId={params.envId} onChanged={() => setVersion((n) => n + 1)} /></section>
      <section aria-labelledby="fragments-h"><h2 id="fragments-h">Fragments</h2><Resources view={view('config-fragments')} envId={params.envId} /></section>
      <section aria-labelledby="previews-h"><h2 id="previews-h">Preview and sync</h2><Previews key={version} params={params} /></section>
    </>
  );
}

function Previews({ params }: { params: Record<string, string> }) {
  const files = useLoad((signal) => listAll(`/api/environments/${params.envId}/config-files`, signal), [params.envId]);
  const [selected, setSelected] = useState<string | null>(null);
  if (files.error) return <ErrorNote error={files.error} />;
  if (!files.data) return <p role="status">Loading…</p>;
  if (!files.data.length) return <p>No config file in this environment.</p>;
  return (
    <div class="split">
      <nav aria-label="Config files">
        <ul class="plain">
          {files.data.map((f: any) => (
            <li><button type="button" class="link" aria-pressed={selected === f.id} onClick={() => setSelected(f.id)}>{f.name}</button></li>
          ))}
        </ul>
      </nav>
      {selected ? <ConfigFile key={selected} id={selected} /> : <p>Choose a file to preview it.</p>}
    </div>
  );
}

function ConfigFile({ id }: { id: string }) {
  const { me } = useSession();
  const data = useLoad(async (signal) => {
    const [file, preview] = await Promise.all([get(`/api/config-files/${id}`, signal), get(`/api/config-files/${id}/preview`, signal)]);
    return { file, preview };
  }, [id]);
  const [diff, setDiff] = useState<any>(null);
  const [synced, setSynced] = useState<any>(null);
  const action = useAction();
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { file, preview } = data.data;
  return (
    <section aria-labelledby="file-h">
      <h2 id="file-h">{file.name}</h2>
      <p class="reason">{(file.attachments ?? []).length} attachment(s). Secrets are shown redacted.</p>
      {preview.unresolvedKeys.length > 0 && <p class="error">Unresolved keys: {preview.unresolvedKeys.join(', ')}</p>}
      {(preview.unknownFragments ?? []).length > 0 && <p class="error">Unknown fragments: {preview.unknownFragments.join(', ')}</p>}
      <h3>Preview</h3>
      {preview.content === null ? <p>Binary asset, {preview.size} bytes.</p> : <pre tabIndex={0} aria-label="Rendered preview">{preview.content}</pre>}
      {can(me, 'operator') && (
        <div class="actions">
          <button type="button" disabled={action.busy} onClick={() => action.run(async () => { setSynced(null); setDiff(await post(`/api/config-files/${id}/sync-all`, { dryRun: true })); })}>Show diff</button>
          {diff && <button type="button" class="primary" disabled={action.busy} onClick={() => action.run(async () => { setSynced(await post(`/api/config-files/${id}/sync-all`, {})); setDiff(null); })}>Sync to servers</button>}
        </div>
      )}
      <ErrorNote error={action.error} />
      {diff && <Targets title="What a sync would change" result={diff} />}
      {synced && <Targets title="Sync result" result={synced} />}
    </section>
  );
}

function Targets({ title, result }: { title: string; result: any }) {
  return (
    <div aria-live="polite">
      <h3>{title}: {result.status}</h3>
      {result.targets.map((t: any) => (
        <div class="target">
          <p><strong>{t.serverName}</strong> <code>{t.targetPath}</code> <span class="badge">{t.status}</span> {t.error && <span class="error">{t.error}</span>}</p>
          {t.diff && <pre class="diff" tabIndex={0} aria-label={`Diff for ${t.serverName}`}>{t.diff}</pre>}
        </div>
      ))}
    </div>
  );
}
