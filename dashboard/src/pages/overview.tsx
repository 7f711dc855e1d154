// One environment at a glance: servers and their health, services and where they run (running
// tag against the desired one, Ready/Degraded/Drifted and why), recent plans, unread
// notifications and the manifests folder's last result. Refreshed by the environment's events.
import { get } from '../api';
import { useEvents, useLoad } from '../hooks';
import { Link } from '../router';
import { Block, useProgressiveBlocks } from '../progressive';
import { ConditionBadge, ErrorNote, HealthBadge, PlanStatus, when, type Condition } from '../components/status';
import { GitSourceStatus, SyncBadge } from './git-source';
import { can, useSession } from '../session';

interface Server { id: string; name: string; hostname: string; labels: Record<string, string>; status: string | null; message: string | null; checkedAt: string | null; conditions: Condition[] }
interface Placement { deploymentId: string; serverId: string; serverName: string; containerName: string; status: string; runningTag: string | null; conditions: Condition[] }
interface Service { id: string; name: string; desiredTag: string | null; serverSelector: { matchLabels: Record<string, string> } | null; conditions: Condition[]; deployments: Placement[] }
interface Overview {
  servers: Server[]; services: Service[];
  plans: Array<{ id: string; name: string; status: string; error: string | null; createdAt: string }>;
  notifications: { unread: number; items: Array<{ id: string; type: string; title: string | null; message: string | null; createdAt: string }> };
  manifests: any;
}

// One request for the whole page (GET …/overview): the server answers it from a few queries
// instead of six routes and the extra pages of 200 services.
function loadOverview(envId: string, signal: AbortSignal): Promise<Overview> {
  return get<Overview>(`/api/environments/${envId}/overview`, signal);
}

// Opened by address, the overview's requests start with the sign-in check (routes.ts: preload)
// and the page takes that answer once; a later load (an event, another environment) asks again.
let early: { envId: string; data: ReturnType<typeof loadOverview> } | undefined;

export function preloadOverview({ envId }: Record<string, string>) {
  early = { envId, data: loadOverview(envId, new AbortController().signal) };
  early.data.catch(() => undefined); // the page shows the error when it takes the answer
}

function takeEarly(envId: string) {
  const e = early;
  early = undefined;
  return e?.envId === envId ? e.data : undefined;
}

const RELOAD_ON = ['plan.updated', 'deployment.updated', 'health.changed', 'drift.changed', 'notification.created', 'manifests.synced', 'manifests.sync_failed'];
const PREVIEW_EVENTS = ['preview.ready', 'preview.failed', 'preview.deleted'];

export function OverviewPage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const { me } = useSession();
  const o = useLoad((signal) => takeEarly(envId) ?? loadOverview(envId, signal), [envId]);
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (RELOAD_ON.includes(e.type)) o.reload(); });
  if (o.error) return <ErrorNote error={o.error} />;
  if (!o.data) return <p role="status">Loading…</p>;
  const { servers, services, plans, notifications, manifests } = o.data;
  const operator = can(me, 'operator');
  const git = manifests.gitSource;
  return (
    <div class="overview">
      {git?.sync === 'Failed' && (
        <section aria-labelledby="git-failed-h" class="panel" data-testid="git-failed">
          <h2 id="git-failed-h">The Git source's last sync failed</h2>
          <GitSourceStatus status={git} />
          <p><Link href={`/env/${envId}/git`}>Open the Git source</Link> to sync again or see what the next sync would change.</p>
        </section>
      )}
      {!servers.length && !services.length && <FirstSteps envId={envId} operator={operator} />}
      <section aria-labelledby="servers-h">
        <h2 id="servers-h">Servers ({servers.length})</h2>
        {!servers.length ? (
          <p data-empty="servers">No server yet. {operator ? <Link href={`/env/${envId}/servers`}>Add a first server</Link> : 'An operator adds one on the Servers page.'}</p>
        ) : <table>
          <thead><tr><th scope="col">Server</th><th scope="col">Address</th><th scope="col">Labels</th><th scope="col">Health</th><th scope="col">Conditions</th><th scope="col">Checked</th></tr></thead>
          <tbody>
            {servers.map((s) => (
              <tr data-server={s.name}>
                <th scope="row">{s.name}</th><td>{s.hostname}</td>
                <td data-labels>{Object.entries(s.labels ?? {}).map(([k, v]) => <code class="label">{k}={v} </code>)}</td>
                <td><HealthBadge status={s.status} /> <span class="reason">{s.message}</span></td>
                <td><ConditionBadge conditions={s.conditions} /></td><td>{when(s.checkedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>}
      </section>

      <ServicesTable envId={envId} services={services} operator={operator} />

      {git && <Previews envId={envId} />}

      <div class="columns">
        <section aria-labelledby="plans-h">
          <h2 id="plans-h">Recent plans</h2>
          {plans.length ? (
            <ul class="plain">
              {plans.map((p) => (
                <li><Link href={`/env/${envId}/plans/${p.id}`}>{p.name}</Link> <PlanStatus status={p.status} /> <span class="reason">{when(p.createdAt)}{p.error && ` — ${p.error}`}</span></li>
              ))}
            </ul>
          ) : <p>No plan yet.</p>}
        </section>

        <section aria-labelledby="notes-h">
          <h2 id="notes-h">Unread notifications ({notifications.unread})</h2>
          {notifications.items.length ? (
            <ul class="plain">{notifications.items.map((n) => <li><strong>{n.title ?? n.type}</strong> <span class="reason">{n.message} · {when(n.createdAt)}</span></li>)}</ul>
          ) : <p>Nothing unread.</p>}
        </section>

        <section aria-labelledby="manifests-h">
          <h2 id="manifests-h">Manifests</h2>
          <Manifests status={manifests} />
          {git ? (
            <p data-testid="git-line">Git source: <SyncBadge sync={git.sync} /> applied commit <code class="hash">{git.revision?.commit?.slice(0, 12) ?? 'none yet'}</code>. <Link href={`/env/${envId}/git`}>Open it</Link></p>
          ) : <p><Link href={`/env/${envId}/git`}>Follow a Git repository</Link> with this environment's manifests.</p>}
        </section>
      </div>
    </div>
  );
}

// The services table of a big environment is built in parts (progressive.ts): the first screenful
// comes with the rest of the page, the other rows in blocks while the browser is idle. aria-busy
// tells assistive technology the table is still filling; the heading has the full count at once.
function ServicesTable({ envId, services, operator }: { envId: string; services: Service[]; operator: boolean }) {
  const blocks = useProgressiveBlocks(services.length);
  const rows = (list: Service[], from: number, to: number) => list.slice(from, to).map((s) => <ServiceRow key={s.id} envId={envId} s={s} />);
  return (
    <section aria-labelledby="services-h" class="long">
      <h2 id="services-h">Services ({services.length})</h2>
      {!services.length ? (
        <p data-empty="services">No service yet. {operator ? <><Link href={`/env/${envId}/images`}>Add its image</Link>, then <Link href={`/env/${envId}/services`}>create a first service</Link>.</> : 'An operator creates one on the Services page.'}</p>
      ) : <table aria-busy={blocks.length > 0 && blocks[blocks.length - 1][1] < services.length}>
        <thead><tr><th scope="col">Service</th><th scope="col">Desired tag</th><th scope="col">Status</th><th scope="col">Deployments (server: running tag, status)</th></tr></thead>
        <tbody>
          {blocks.map(([from, to]) => <Block key={from} items={services} from={from} to={to} render={rows} />)}
        </tbody>
      </table>}
    </section>
  );
}

function ServiceRow({ envId, s }: { envId: string; s: Service }) {
  return (
    <tr data-service={s.name}>
      <th scope="row"><Link href={`/env/${envId}/services/${s.id}`}>{s.name}</Link></th>
      <td><code>{s.desiredTag ?? '—'}</code></td>
      <td><ConditionBadge conditions={s.conditions} /></td>
      <td>
        {s.serverSelector && <p class="reason" data-selector>on servers labelled <code>{Object.entries(s.serverSelector.matchLabels).map(([k, v]) => `${k}=${v}`).join(',')}</code></p>}
        <ul class="plain">
          {s.deployments.map((d) => (
            <li data-deployment={d.containerName}>
              {d.serverName}: <code>{d.runningTag ?? 'none'}</code>{' '}
              <ConditionBadge conditions={d.conditions} />
            </li>
          ))}
        </ul>
      </td>
    </tr>
  );
}

/** A new environment: the steps that get a first container running, each a link to its page. */
function FirstSteps({ envId, operator }: { envId: string; operator: boolean }) {
  if (!operator) return <p class="next-steps">This environment is empty: an operator adds its servers and services.</p>;
  return (
    <section aria-labelledby="first-h" class="next-steps" data-testid="first-steps">
      <h2 id="first-h">Get a first container running</h2>
      <ol>
        <li><Link href={`/env/${envId}/servers`}>Add a first server</Link>: its address and SSH user (the environment's public key in its <code>authorized_keys</code>), then Test connection.</li>
        <li><Link href={`/env/${envId}/registries`}>Add the registry</Link> the image comes from, if it needs credentials or is on this machine (then an admin allows its host in <Link href={`/env/${envId}/system`}>System settings</Link>).</li>
        <li><Link href={`/env/${envId}/images`}>Add the image</Link>, then <Link href={`/env/${envId}/services`}>a first service</Link> with a deployment on the server, and deploy a tag from its page.</li>
        <li>Or <Link href={`/env/${envId}/git`}>follow a Git repository</Link> holding the environment's manifests.</li>
      </ol>
    </section>
  );
}

interface Preview {
  number: number; branch: string | null; headSha: string; environmentId: string | null; environmentName: string; url: string | null;
  state: 'pending' | 'ready' | 'failed' | 'deleting'; reason: string | null; updatedAt: string; expiresAt: string | null;
}
const PREVIEW_BADGE: Record<Preview['state'], string> = { ready: 'good', pending: 'warn', deleting: 'warn', failed: 'bad' };

// The previews of the environment's Git source, one per open pull request (docs/git-sources.md#previews):
// followed by the preview events and by the plans they wait for.
function Previews({ envId }: { envId: string }) {
  const list = useLoad((signal) => get<{ items: Preview[] }>(`/api/environments/${envId}/previews?limit=200`, signal), [envId]);
  useEvents(`/api/events?environmentId=${envId}`, (e) => { if (PREVIEW_EVENTS.includes(e.type) || e.type === 'plan.updated') list.reload(); });
  if (list.error) return <ErrorNote error={list.error} />;
  const items = list.data?.items ?? [];
  return (
    <section aria-labelledby="previews-h" data-testid="previews">
      <h2 id="previews-h">Pull request previews ({items.length})</h2>
      {!items.length ? <p data-empty="previews">No pull request has a preview.</p> : <table>
        <thead><tr><th scope="col">Pull request</th><th scope="col">Environment</th><th scope="col">State</th><th scope="col">Head</th><th scope="col">URL</th><th scope="col">Expires</th></tr></thead>
        <tbody>
          {items.map((p) => (
            <tr data-preview={p.number}>
              <th scope="row">#{p.number}{p.branch && <span class="reason"> {p.branch}</span>}</th>
              <td>{p.environmentId ? <Link href={`/env/${p.environmentId}`}>{p.environmentName}</Link> : p.environmentName}</td>
              <td><span class={`badge ${PREVIEW_BADGE[p.state]}`}>{p.state}</span> {p.reason && <span class="reason">{p.reason}</span>}</td>
              <td><code class="hash" title={p.headSha}>{p.headSha.slice(0, 12)}</code></td>
              <td>{p.url ? <a href={p.url} rel="noopener noreferrer">{p.url}</a> : '—'}</td>
              <td>{p.expiresAt ? when(p.expiresAt) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>}
    </section>
  );
}

function Manifests({ status }: { status: any }) {
  if (!status.dir) return <p>No manifests folder is watched (MANIFESTS_DIR is unset).</p>;
  const attempt = status.lastAttempted;
  // a revision is {gitCommit, contentHash}: the commit when the folder is a git checkout, and the
  // hash of what was read; each shortened (the whole value in the title), so it never widens the page
  const revision = (r: any) => {
    if (!r) return '—';
    const short = (label: string, v: string | null | undefined) => v && <>{label} <code title={v} class="hash">{v.replace(/^sha256:/, '').slice(0, 12)}</code> </>;
    return <>{short('commit', r.gitCommit)}{short('content', r.contentHash)}</>;
  };
  return (
    <div>
      <p>Folder <code>{status.dir}</code>{status.watching ? ', watched' : ''}. Applied revision {revision(status.lastApplied?.revision)}.</p>
      {attempt && !attempt.ok && (
        <>
          <p><span class="badge bad">Last apply failed</span> revision {revision(attempt.revision)} at {when(attempt.at)}</p>
          <ul class="errors">
            {attempt.errors.map((e: any) => <li><code>{e.file}:{e.line}:{e.column}</code> {e.path && <code>{e.path}</code>} {e.message}</li>)}
          </ul>
        </>
      )}
      {(status.degraded ?? []).length > 0 && <p>{status.degraded.length} object(s) degraded.</p>}
    </div>
  );
}
