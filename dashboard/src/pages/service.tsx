// One service: its spec, where it runs, deploy a tag (preview the plan first if wanted), the plan
// live, its revisions (diff any with the one before, revert), its deploy history, and each
// container's output as it comes.
import { useState } from 'preact/hooks';
import { api, get, listAll, post } from '../api';
import { useAction, useEvents, useLoad } from '../hooks';
import { can, useSession } from '../session';
import { PlanProgress } from '../components/plan-progress';
import { ConditionBadge, ErrorNote, PlanStatus, when } from '../components/status';
import { Link } from '../router';
import { Value } from '../components/values';
import { ContainerCharts } from '../components/metrics';
import { SchemaForm, type Option } from '../components/schema-form';
import { kindOps, ownedBy, referenceOptions } from './resources';
import { fillPath, operations } from '../schema';
import { ContainerTerminal } from '../components/terminal';

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
  // the checks of its deployments (container, and TCP / certificate of their ports) with their alert state, and their latest results
  const mine = new Set(deployments.map((d: any) => d.id));
  const [checks, ...logs] = await Promise.all([
    listAll(`/api/environments/${service.environmentId}/health-checks`, signal),
    ...deployments.map((d: any) => get(`/api/environments/${service.environmentId}/health-logs?deploymentId=${d.id}&limit=10`, signal)),
  ]);
  const results = logs.flatMap((l: any) => l.items as any[]).sort((a, b) => b.checkedAt.localeCompare(a.checkedAt)).slice(0, 10);
  return {
    service, deployments, history: history.items as any[], serverName: new Map(servers.map((s: any) => [s.id, s.name])), tags,
    revisions: revisions.items as any[], checks: checks.filter((c: any) => mine.has(c.deploymentId)), results,
  };
}

/** The events after which the page reads again: a deployment's or plan's progress, a check going down or up. */
const RELOAD_ON = new Set(['deployment.updated', 'plan.updated', 'health.failed', 'health.recovered']);

export function ServicePage({ params }: { params: Record<string, string> }) {
  const { me } = useSession();
  const { envId, serviceId } = params;
  const loaded = useLoad((signal) => loadService(serviceId, signal), [serviceId]);
  const [planId, setPlanId] = useState<string | null>(null);
  const [terminal, setTerminal] = useState<string | null>(null);
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (RELOAD_ON.has(e.type)) loaded.reload(); });
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (!loaded.data) return <p role="status">Loading…</p>;
  const { service, deployments, history, serverName, tags, revisions, checks, results } = loaded.data;
  return (
    <div class="service">
      <p class="lead"><strong data-testid="service-name">{service.name}</strong> wants tag <code>{service.imageTag ?? '—'}</code> <ConditionBadge conditions={service.conditions} /></p>
      <p class="reason" data-testid="revisions-line">
        {service.desiredRevision ? <>Desired revision <strong>r{service.desiredRevision}</strong>; last good {service.currentRevision ? <strong>r{service.currentRevision}</strong> : 'none yet'}</> : 'Not rolled out yet'}
        {service.failedRevision && <span class="error"> — r{service.failedRevision.revision} failed: {service.failedRevision.reason}</span>}
      </p>

      <ServiceSpec service={service} editable={can(me, 'operator')} onSaved={loaded.reload} />

      <section aria-labelledby="deps-h">
        <h2 id="deps-h">Deployments</h2>
        <table>
          <thead><tr><th scope="col">Container</th><th scope="col">Server</th><th scope="col">Running tag</th><th scope="col">Status</th><th scope="col">Logs</th>{can(me, 'operator') && <><th scope="col">Terminal</th><th scope="col">Remove</th></>}</tr></thead>
          <tbody>
            {deployments.map((d: any) => (
              <tr data-deployment={d.containerName}>
                <th scope="row">{d.containerName}</th><td>{serverName.get(d.serverId) ?? d.serverId}</td><td><code>{d.imageTag ?? 'none'}</code></td>
                <td><ConditionBadge conditions={d.conditions} />{d.statusNote && <span class="reason" data-testid="status-note"> {d.status}: {d.statusNote}</span>}</td>
                <td><ContainerLogs serviceId={serviceId} deployment={d} /></td>
                {can(me, 'operator') && <><td><button type="button" class="link" aria-pressed={terminal === d.id} onClick={() => setTerminal(terminal === d.id ? null : d.id)}>Terminal<span class="sr-only"> in {d.containerName}</span></button></td>
                  <td><RemoveDeployment service={service} deployment={d} onDone={loaded.reload} /></td></>}
              </tr>
            ))}
          </tbody>
        </table>
        {can(me, 'operator') && terminal && deployments.some((d: any) => d.id === terminal) && (
          <ContainerTerminal key={terminal} serviceId={serviceId} deployment={deployments.find((d: any) => d.id === terminal)} onClose={() => setTerminal(null)} />
        )}
        {can(me, 'operator') && <AddDeployment service={service} onDone={loaded.reload} />}
      </section>

      {service.ingress && <IngressStatus service={service} />}

      <HealthChecks checks={checks} results={results} />

      <ContainerCharts service={service} />

      <ImageUpdates service={service} canDeploy={can(me, 'operator')} onPlan={(id) => { setPlanId(id); loaded.reload(); }} />
      {can(me, 'operator') && <DeployForm service={service} tags={tags} onPlan={setPlanId} />}
      {planId && <PlanProgress key={planId} planId={planId} />}

      <Revisions service={service} revisions={revisions} canRevert={can(me, 'operator')} onPlan={setPlanId} />

      <section aria-labelledby="history-h">
        <h2 id="history-h">History</h2>
        {history.length ? (
          <table>
            <thead><tr><th scope="col">When</th><th scope="col">Container</th><th scope="col">Server</th><th scope="col">Tag</th><th scope="col">Result</th><th scope="col">Plan</th></tr></thead>
            <tbody>
              {history.map((h: any) => (
                <tr>
                  <td>{when(h.startedAt ?? h.createdAt)}</td><td>{h.containerName}</td><td>{h.serverId ? serverName.get(h.serverId) ?? 'a removed server' : '—'}</td>
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

/** Per ingress host: its certificate, and per server whether its proxy routes it (GET …/ingress: observed in each proxy's live config). */
function IngressStatus({ service }: { service: any }) {
  const status = useLoad((signal) => get(`/api/services/${service.id}/ingress`, signal), [service.id, service.generation]);
  const CERT_TONE: Record<string, string> = { issued: 'good', pending: 'warn', failed: 'bad', none: 'muted' };
  return (
    <section aria-labelledby="ingress-h">
      <h2 id="ingress-h">Ingress</h2>
      <ErrorNote error={status.error} />
      {status.data && (
        <table aria-label="Ingress hosts" data-testid="ingress-status">
          <thead><tr><th scope="col">Host</th><th scope="col">Certificate</th><th scope="col">Server</th><th scope="col">Routed</th></tr></thead>
          <tbody>
            {status.data.hosts.flatMap((h: any) => (h.servers.length ? h.servers : [null]).map((x: any) => (
              <tr data-host={h.host} data-server={x?.serverName}>
                <th scope="row">{h.host}</th>
                <td><span class={`badge ${CERT_TONE[h.certificate.state] ?? 'muted'}`}>{h.certificate.state}</span>
                  {h.certificate.issuer && <span class="reason"> {h.certificate.issuer}</span>}
                  {h.certificate.notAfter && <span class="reason"> until {when(h.certificate.notAfter)}</span>}
                  {h.certificate.error && <span class="reason"> {h.certificate.error}</span>}</td>
                <td>{x ? x.serverName : '—'}</td>
                <td>{x ? <><span class={`badge ${x.routed ? 'good' : 'bad'}`}>{x.routed ? 'routed' : 'not routed'}</span>{x.message && <span class="reason"> {x.message}</span>}</> : 'no server runs the service'}</td>
              </tr>
            )))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Read-only: each check of the service's deployments with its alert state (down after the bounce threshold), and the latest results. */
function HealthChecks({ checks, results }: { checks: any[]; results: any[] }) {
  const down = checks.filter((c) => c.status === 'down').length;
  return (
    <section aria-labelledby="health-h">
      <h2 id="health-h">Health checks and alerts</h2>
      {checks.length ? (
        <>
          <p data-testid="alert-summary">{down ? `${down} of ${checks.length} ${checks.length === 1 ? 'check' : 'checks'} down: alerting.` : `${checks.length === 1 ? 'The check is' : `All ${checks.length} checks are`} up.`}</p>
          <table aria-label="Checks">
            <thead><tr><th scope="col">Check</th><th scope="col">Kind</th><th scope="col">Alert</th><th scope="col">Failures in a row</th><th scope="col">Last result</th><th scope="col">Last checked</th></tr></thead>
            <tbody>
              {checks.map((c) => (
                <tr data-check={c.checkKey}>
                  <th scope="row">{c.target}</th><td>{c.kind}</td>
                  <td><span class={`badge ${c.status === 'down' ? 'bad' : 'good'}`}>{c.status}</span>{c.downSince && <span class="reason"> since {when(c.downSince)}</span>}</td>
                  <td>{c.failures}</td>
                  <td><span class={`badge ${RESULT_TONE[c.lastResult] ?? 'muted'}`}>{c.lastResult}</span>{c.lastError && <span class="reason"> {c.lastError}</span>}</td>
                  <td>{when(c.lastCheckedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : <p>No check of its containers has run yet.</p>}
      {results.length > 0 && (
        <>
          <h3>Latest results</h3>
          <ol class="results" aria-label="Latest results">
            {results.map((r) => (
              <li data-result={r.id}>{when(r.checkedAt)} <span class={`badge ${RESULT_TONE[r.status] ?? 'muted'}`}>{r.status}</span> {r.target} in {r.latencyMs} ms{r.error && <span class="reason">: {r.error}</span>}</li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

const RESULT_TONE: Record<string, string> = { ok: 'good', warning: 'warn', failed: 'bad' };

/** The tags of the service's image newer than its own (under the image's version policy), each deployable in a click. */
function ImageUpdates({ service, canDeploy, onPlan }: { service: any; canDeploy: boolean; onPlan(id: string): void }) {
  const tags = useLoad((signal) => get(`/api/services/${service.id}/image-tags`, signal), [service.id, service.imageTag]);
  const action = useAction();
  const newer: string[] = (tags.data?.tags ?? []).filter((t: any) => t.newer).map((t: any) => t.tag);
  return (
    <section aria-labelledby="updates-h">
      <h2 id="updates-h">Image updates</h2>
      {!service.containerImageId ? <p>The service has no container image.</p>
        : tags.error ? <p class="reason" data-testid="updates-unavailable">The registry's tags are unavailable: {tags.error.message}</p>
          : !tags.data ? <p role="status">Asking the registry…</p>
            : (
              <>
                <p><code>{tags.data.imageName}</code> at <code>{tags.data.currentTag ?? '—'}</code>: {newer.length
                  ? `${newer.length} newer ${newer.length === 1 ? 'tag' : 'tags'} in the registry, newest first.`
                  : 'no newer tag in the registry.'}</p>
                {newer.length > 0 && (
                  <ul class="updates" aria-label="Newer tags">
                    {newer.map((tag) => (
                      <li data-tag={tag}><code>{tag}</code>
                        {canDeploy && <> <button type="button" disabled={action.busy} onClick={() => action.run(async () => {
                          onPlan((await post(`/api/services/${service.id}/deploy`, { imageTag: tag })).id);
                        })}>Deploy {tag}</button></>}
                      </li>
                    ))}
                  </ul>
                )}
              </>
            )}
      {canDeploy && service.containerImageId && (
        <div class="actions"><button type="button" disabled={action.busy || tags.loading} onClick={() => action.run(async () => {
          await post(`/api/services/${service.id}/check-updates`, {});
          tags.reload();
        })}>Check the registry now</button></div>
      )}
      <ErrorNote error={action.error} />
    </section>
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

/** The spec as the API reads it, and (operators) its edit form drawn from the update schema. */
function ServiceSpec({ service, editable, onSaved }: { service: any; editable: boolean; onSaved(): void }) {
  const { me } = useSession();
  const [editing, setEditing] = useState(false);
  const form = useLoad(async (signal) => {
    if (!editing) return null;
    const ops = await kindOps({ list: 'listServices', update: 'updateService' }, signal);
    return { ops, options: await referenceOptions([ops.update?.body], service.environmentId, me, signal) };
  }, [editing, service.id]);
  const env = Object.entries(service.env ?? {}) as Array<[string, string]>;
  const hc = service.healthCheck;
  const owner = service.source?.kind === 'manifest' ? service.source.path : null;
  return (
    <section aria-labelledby="spec-h">
      <h2 id="spec-h">Spec</h2>
      {owner && <p class="reason">Declared by the manifest <code>{owner}</code>: the fields it sets are edited there.</p>}
      <dl class="spec" data-testid="service-spec">
        <dt>Image tag</dt><dd><code>{service.imageTag ?? '—'}</code></dd>
        <dt>Command</dt><dd>{service.command ? <code>{service.command.join(' ')}</code> : 'the image default'}</dd>
        <dt>Ports</dt><dd>{service.ports?.length ? service.ports.map((p: string) => <code>{p} </code>) : 'none'}</dd>
        <dt>Volumes</dt><dd>{service.volumes?.length ? service.volumes.map((v: string) => <code>{v} </code>) : 'none'}</dd>
        <dt>Health check</dt>
        <dd>{hc ? <><code>{hc.test.join(' ')}</code> every {hc.intervalSec ?? 30} s, timeout {hc.timeoutSec ?? 30} s, {hc.retries ?? 3} retries</> : 'the image default'}</dd>
        <dt>Update order</dt><dd>{service.updateOrder}{service.updateOrder === 'start-first' && `, drain ${service.drainSec} s`}</dd>
        <dt>Restart policy</dt><dd data-testid="restart-policy">{service.composeTemplate ? 'the compose template\'s' : <code>{service.restartPolicy}</code>}</dd>
        <dt>Placement</dt>
        <dd data-testid="placement">{service.serverSelector
          ? <>every server labelled <code>{Object.entries(service.serverSelector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',')}</code></>
          : 'the deployments listed below'}</dd>
        <dt>Ingress</dt>
        <dd data-testid="ingress">{service.ingress
          ? <><code>{service.ingress.hosts.join(', ')}</code> → port {service.ingress.port}{(service.ingress.path ?? '/') !== '/' && <>, path <code>{service.ingress.path}</code></>}, TLS {typeof service.ingress.tls === 'object' && service.ingress.tls ? <>from secret <code>{service.ingress.tls.secretRef}</code></> : service.ingress.tls ?? 'auto'}</>
          : 'none'}</dd>
        <dt>Env</dt>
        <dd>{env.length ? <ul class="plain">{env.map(([k, v]) => <li data-env={k}><code>{k}={v}</code></li>)}</ul> : 'none'}</dd>
      </dl>
      {editable && !editing && <div class="actions"><button type="button" onClick={() => setEditing(true)}>Edit spec</button></div>}
      {editing && <ErrorNote error={form.error} />}
      {editing && form.data?.ops.update && (
        <div class="panel">
          <h3>Edit {service.name}</h3>
          <p class="help">Saving a change of the spec rolls it out as a new revision, as a deploy does.</p>
          <SchemaForm name="edit-service" schema={form.data.ops.update.body!} initial={service} owned={ownedBy(service)} options={form.data.options}
            omit={['composeTemplate']} submitLabel="Save spec" onCancel={() => setEditing(false)}
            onSubmit={async (body) => { await api('PATCH', `/api/services/${service.id}`, body); setEditing(false); onSaved(); }} />
        </div>
      )}
    </section>
  );
}

/** A new deployment of the service: on which server, under which container name (the API's create schema). */
function AddDeployment({ service, onDone }: { service: any; onDone(): void }) {
  const { me } = useSession();
  const [open, setOpen] = useState(false);
  const form = useLoad(async (signal) => {
    if (!open) return null;
    const op = (await operations(signal)).get('createDeployment')!;
    return { op, options: await referenceOptions([op.body], service.environmentId, me, signal) as Record<string, Option[]> };
  }, [open]);
  if (!open) return <div class="actions"><button type="button" onClick={() => setOpen(true)}>Add a deployment</button></div>;
  if (!form.data) return <ErrorNote error={form.error} />;
  const { op, options } = form.data;
  return (
    <div class="panel">
      <h3>New deployment of {service.name}</h3>
      <SchemaForm name="create-deployment" schema={op.body!} options={options} submitLabel="Add deployment" onCancel={() => setOpen(false)}
        onSubmit={async (body) => { await api(op.method, fillPath(op.path, { id: service.id }), body); setOpen(false); onDone(); }} />
    </div>
  );
}

function RemoveDeployment({ service, deployment, onDone }: { service: any; deployment: any; onDone(): void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  if (deployment.source?.kind === 'manifest') return <span class="reason">manifest <code>{deployment.source.path}</code></span>;
  return (
    <>
      {confirming ? (
        <button type="button" class="danger" disabled={action.busy} onClick={() => action.run(async () => {
          await api('DELETE', `/api/services/${service.id}/deployments/${deployment.id}`);
          onDone();
        })}>Remove {deployment.containerName} for good</button>
      ) : <button type="button" class="link" onClick={() => setConfirming(true)}>Remove<span class="sr-only"> {deployment.containerName}</span></button>}
      <ErrorNote error={action.error} />
    </>
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
            <table class="changes">
              <thead><tr><th scope="col">Field</th><th scope="col">r{diff.from}</th><th scope="col">r{diff.to}</th></tr></thead>
              <tbody>{diff.changes.map((c) => <tr><th scope="row"><code>{c.path}</code></th><td class="del"><Value value={c.from} /></td><td class="ins"><Value value={c.to} /></td></tr>)}</tbody>
            </table>
          ) : <p>No difference.</p>}
          <details><summary>Unified diff</summary><pre class="unified">{diff.unified}</pre></details>
        </div>
      )}
    </section>
  );
}
