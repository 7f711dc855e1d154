// What an admin runs for the whole installation: users, API tokens, chat channels, outgoing
// webhooks and the SMTP relay, each drawn from the API's schemas like every kind. A lowered admin
// (lowered in some environment) sees only their own API tokens: the rest needs an unrestricted admin.
import { ApiError, api, get } from '../api';
import { useLoad } from '../hooks';
import { operations } from '../schema';
import { KIND_VIEWS, type KindView } from '../kinds';
import { SchemaForm } from '../components/schema-form';
import { ErrorNote } from '../components/status';
import { can, useSession } from '../session';
import { Resources } from './resources';

const SECTIONS = ['users', 'tokens', 'chat-channels', 'outgoing-webhooks'];

/** A lowered admin sees only what the API lets them do here: their own API tokens. */
export function AdminPage({ params }: { params: Record<string, string> }) {
  const { me } = useSession();
  return (
    <>
      {SECTIONS.map((key) => KIND_VIEWS.find((v) => v.key === key) as KindView).filter((view) => can(me, view.viewRole ?? 'viewer')).map((view) => {
        const key = view.key;
        return <section aria-labelledby={`${key}-h`} class="admin"><h2 id={`${key}-h`}>{view.title}</h2><Resources view={view} envId={params.envId} /></section>;
      })}
      {can(me, 'installation') && <Smtp />}
    </>
  );
}

/** The SMTP relay: one object, replaced as a whole (PUT); its password write-only. */
function Smtp() {
  const data = useLoad(async (signal) => {
    const [ops, current] = await Promise.all([
      operations(signal),
      get('/api/admin/smtp', signal).catch((err) => { if (err instanceof ApiError && err.status === 404) return null; throw err; }),
    ]);
    return { put: ops.get('putSmtpConfig')!, current };
  }, []);
  if (!data.data) return <ErrorNote error={data.error} />;
  const { put, current } = data.data;
  return (
    <section aria-labelledby="smtp-h" class="panel">
      <h2 id="smtp-h">SMTP relay</h2>
      {current ? <p class="reason">Password {current.hasPassword ? 'set (never shown)' : 'not set'}.</p> : <p class="reason">Not set up: no email is sent.</p>}
      <SchemaForm key={JSON.stringify(current)} name="smtp" schema={put.body!} initial={current ?? undefined} replace writeOnly={['password']}
        submitLabel="Save SMTP relay" onSubmit={async (body) => { await api(put.method, put.path, body); data.reload(); }} />
    </section>
  );
}
