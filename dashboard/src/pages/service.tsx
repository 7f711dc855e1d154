// One service: its spec, where it runs, deploy a tag (preview the plan first if wanted), the plan
// live, its revisions (diff any with the one before, revert), its deploy history, and each
// container's output as it comes.
import { useState } from 'preact/hooks';
import { get, listAll, post } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { PlanProgress } from '../components/plan-progress';
import { ConditionBadge, ErrorNote, PlanStatus, when } from '../components/status';
import { Link } from '../router';

async function loadService(id: string, signal: AbortSignal) {
  const service = await get(`/api/services/${id}`, signal);
  const [deployments, history, servers, tags, revisions] = await Promise.all([
    listAll(`/api/services/${id}/deployments`, signal),
    get(`/api/services/${id}/deployments-history?limit=20`, signal),
    listAll(`/api/environments/${service.environmentId}/servers`, signal),
    // the tags the registry was seen serving for this image, when it knows any
    get(`/api/container-images/${service.containerImageId}/digests?limit=50`, signal).then((r) => r.items as any[], () => []),
    get(`/api/services/${id}/revisions?limit=20`, signal),
  ]);
  return {
    service, deployments, history: history.items as any[], serverName: new Map(servers.map((s: any) => [s.id, s.name])), tags,
    revisions: revisions.items as any[],
  };
}

export function ServicePage({ params }: { params: Record<string, string> }) {
  const { me } = useSession();
  const { envId, serviceId } = params;
  const loaded = useLoad((signal) => loadService(serviceId, signal), [serviceId]);
  const [planId, setPlanId] = useState<string | null>(null);
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (e.type === 'deployment.updated' || e.type === 'plan.updated') loaded.reload(); });
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (!loaded.data) return <p role="status">Loading…</p>;
  const { service, deployments, history, serverName, tags, revisions } = loaded.data;
  return (
    <div class="service">
      <p class="lead"><strong data-testid="service-name">{service.name}</strong> wants tag <code>{service.imageTag ?? '—'}</code> <ConditionBadge conditions={service.conditions} /></p>
      <p class="reason" data-testid="revisions-line">
        {service.desiredRevision ? <>Desired revision <strong>r{service.desiredRevision}</strong>; last good {service.currentRevision ? <strong>r{service.currentRevision}</strong> : 'none yet'}</> : 'Not rolled out yet'}
        {service.failedRevision && <span class="error"> — r{service.failedRevision.revision} failed: {service.failedRevision.reason}</span>}
      </p>

      <ServiceSpec service={service} />

      <section aria-labelledby="deps-h">
        <h2 id="deps-h">Deployments</h2>
        <table>
          <thead><tr><th scope="col">Container</th><th scope="col">Server</th><th scope="col">Running tag</th><th scope="col">Status</th><th scope="col">Logs</th></tr></thead>
          <tbody>
            {deployments.map((d: any) => (
              <tr data-deployment={d.containerName}>
                <th scope="row">{d.containerName}</th><td>{serverName.get(d.serverId) ?? d.serverId}</td><td><code>{d.imageTag ?? 'none'}</code></td>
                <td><ConditionBadge conditions={d.conditions} /></td>
                <td><ContainerLogs serviceId={serviceId} deployment={d} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {can(me, 'operator') && <DeployForm service={service} tags={tags} onPlan={setPlanId} />}
      {planId && <PlanProgress key={planId} planId={planId} />}

      <Revisions service={service} revisions={revisions} canRevert={can(me, 'operator')} onPlan={setPlanId} />

      <section aria-labelledby="history-h">
        <h2 id="history-h">History</h2>
        {history.length ? (
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Container</th><th scope="col">Tag</th><th scope="col">Result</th><th scope="col">Plan</th></tr></thead>
            <tbody>
              {history.map((h: any) => (
                <tr>
                  <td>{when(h.startedAt ?? h.createdAt)}</td><td>{h.containerName}</td>
                  <td><code>{h.previousImageTag ?? '—'} → {h.imageTag ?? '—'}</code></td>
                  <td><PlanStatus status={h.status} /> {h.error && <span class="reason">{h.error}</span>}</td>
                  <td><Link href={`/env/${envId}/plans/${h.planId}`}>open</Link></td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : <p>Never deployed.</p>}
      </section>
    </div>
  );
}

function DeployForm({ service, tags, onPlan }: { service: any; tags: any[]; onPlan(id: string): void }) {
  const [tag, setTag] = useState<string>(service.imageTag ?? '');
  const [preview, setPreview] = useState<any>(null);
  const action = useAction();
  const body = () => ({ ...(tag && { imageTag: tag }) });
  const knownTags = [...new Set(tags.map((t) => t.tag).filter(Boolean))];
  return (
    <section aria-labelledby="deploy-h">
      <h2 id="deploy-h">Deploy</h2>
      <form class="inline" onSubmit={(e) => {
        e.preventDefault();
        action.run(async () => { setPreview(null); onPlan((await post(`/api/services/${service.id}/deploy`, body())).id); });
      }}>
        <label>Image tag <input name="imageTag" value={tag} list="known-tags" pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}" required
          onInput={(e) => setTag((e.target as HTMLInputElement).value)} /></label>
        <datalist id="known-tags">{knownTags.map((t) => <option value={t} />)}</datalist>
        <button type="button" disabled={action.busy} onClick={() => action.run(async () => {
          setPreview(await post(`/api/environments/${service.environmentId}/deployment-plans`, { items: [{ serviceId: service.id, ...body() }], dryRun: true }));
        })}>Preview plan</button>
        <button type="submit" class="primary" disabled={action.busy}>Deploy</button>
      </form>
      <ErrorNote error={action.error} />
      {preview && (
        <div class="preview" aria-live="polite">
          <h3>Dry run: nothing was changed</h3>
          {preview.steps.length ? (
            <ol>
              {preview.steps.map((st: any) => (
                <li><strong>{st.containerName}</strong> on {st.server}: <code>{st.currentImageTag ?? '—'} → {st.imageTag ?? '—'}</code> ({st.change})
                  {st.error && <span class="error"> {st.error}</span>}
                  <ul>{st.actions.map((a: string) => <li>{a}</li>)}</ul>
                </li>
              ))}
            </ol>
          ) : <p>Nothing to do: every deployment already runs this.</p>}
        </div>
      )}
    </section>
  );
}

function ContainerLogs({ serviceId, deployment }: { serviceId: string; deployment: any }) {
  const [open, setOpen] = useState(false);
  const [lines, setLines] = useState<string[]>([]);
  useEvents(open ? `/api/services/${serviceId}/deployments/${deployment.id}/logs/stream?tail=100` : null, (e) => {
    if (e.type === 'log') setLines((ls) => [...ls.slice(-499), typeof e.data === 'string' ? e.data : e.data.line ?? JSON.stringify(e.data)]);
  });
  return (
    <>
      <button type="button" class="link" aria-expanded={open} onClick={() => { setOpen(!open); setLines([]); }}>
        {open ? 'Hide' : 'Show'} logs<span class="sr-only"> of {deployment.containerName}</span>
      </button>
      {open && <pre class="logs" aria-live="off" aria-label={`Output of ${deployment.containerName}`} tabIndex={0}>{lines.join('\n') || 'waiting for output…'}</pre>}
    </>
  );
}

function ServiceSpec({ service }: { service: any }) {
  const env = Object.entries(service.env ?? {}) as Array<[string, string]>;
  return (
    <section aria-labelledby="spec-h">
      <h2 id="spec-h">Spec</h2>
      <dl class="spec">
        <dt>Command</dt><dd>{service.command ? <code>{service.command.join(' ')}</code> : 'the image default'}</dd>
        <dt>Ports</dt><dd>{service.ports?.length ? service.ports.map((p: string) => <code>{p} </code>) : 'none'}</dd>
        <dt>Volumes</dt><dd>{service.volumes?.length ? service.volumes.map((v: string) => <code>{v} </code>) : 'none'}</dd>
        <dt>Update order</dt><dd>{service.updateOrder}</dd>
        <dt>Placement</dt>
        <dd data-testid="placement">{service.serverSelector
          ? <>every server labelled <code>{Object.entries(service.serverSelector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',')}</code></>
          : 'the deployments listed below'}</dd>
        <dt>Env</dt>
        <dd>{env.length ? <ul class="plain">{env.map(([k, v]) => <li><code>{k}={v}</code></li>)}</ul> : 'none'}</dd>
      </dl>
    </section>
  );
}

/** Each revision with its outcome; a diff with the revision before it; revert (operators). */
function Revisions({ service, revisions, canRevert, onPlan }: { service: any; revisions: any[]; canRevert: boolean; onPlan(id: string): void }) {
  const [diff, setDiff] = useState<{ from: number; to: number; unified: string; changes: any[] } | null>(null);
  const action = useAction();
  if (!revisions.length) return null;
  const previous = (r: number) => revisions.find((x) => x.revision < r)?.revision ?? null;
  return (
    <section aria-labelledby="revisions-h">
      <h2 id="revisions-h">Revisions</h2>
      <table>
        <thead><tr><th scope="col">Revision</th><th scope="col">When</th><th scope="col">Tag</th><th scope="col">Source</th><th scope="col">Outcome</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {revisions.map((r) => (
            <tr data-revision={r.revision}>
              <th scope="row">r{r.revision}{r.revision === service.currentRevision && <span class="badge good">last good</span>}{r.revision === service.desiredRevision && <span class="badge info">desired</span>}</th>
              <td>{when(r.createdAt)}</td><td><code>{r.imageTag ?? '—'}</code></td>
              <td>{r.source}{r.revertedFrom && ` of r${r.revertedFrom}`}{r.createdBy && <span class="reason"> by {r.createdBy}</span>}</td>
              <td><PlanStatus status={r.outcome} />{r.reason && <span class="reason"> {r.reason}</span>}</td>
              <td>
                {previous(r.revision) !== null && (
                  <button type="button" class="link" disabled={action.busy} onClick={() => action.run(async () => {
                    setDiff(await get(`/api/services/${service.id}/revisions/diff?from=${previous(r.revision)}&to=${r.revision}`));
                  })}>Diff with r{previous(r.revision)}</button>
                )}
                {canRevert && r.revision !== service.desiredRevision && (
                  <button type="button" disabled={action.busy} onClick={() => action.run(async () => {
                    onPlan((await post(`/api/services/${service.id}/revisions/${r.revision}/revert`)).id);
                  })}>Revert to r{r.revision}</button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorNote error={action.error} />
      {diff && (
        <div class="diff" aria-live="polite">
          <h3>r{diff.from} → r{diff.to}</h3>
          {diff.changes.length ? (
            <ul class="plain">{diff.changes.map((c) => <li><code>{c.path}</code>: <code>{JSON.stringify(c.from)}</code> → <code>{JSON.stringify(c.to)}</code></li>)}</ul>
          ) : <p>No difference.</p>}
          <details><summary>Unified diff</summary><pre class="unified">{diff.unified}</pre></details>
        </div>
      )}
    </section>
  );
}
