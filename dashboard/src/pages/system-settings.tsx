// The installation's own settings (GET|PATCH /api/settings/system, admin): webhook delivery,
// retention, the registry access token (write-only) and the outgoing allow-list — the hosts a
// registry, webhook or Git source on this machine or its network needs to be reachable at all.
// The form is drawn from the PATCH's schema like every other, each field with its description.
import { useState } from 'preact/hooks';
import { patch, get } from '../api';
import { useLoad } from '../hooks';
import { operations } from '../schema';
import { SchemaForm } from '../components/schema-form';
import { ErrorNote, when } from '../components/status';

export function SystemSettingsPage() {
  const data = useLoad(async (signal) => {
    const [ops, current] = await Promise.all([operations(signal), get('/api/settings/system', signal)]);
    return { update: ops.get('updateSystemSettings')!, current };
  }, []);
  const [saved, setSaved] = useState(false);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { update, current } = data.data;
  return (
    <section class="panel settings" aria-labelledby="system-h">
      <h2 id="system-h">The whole installation</h2>
      <p class="reason">These apply to every environment. Registry access token {current.hasRegistryAccessToken ? 'set (never shown)' : 'not set'}; last changed {when(current.updatedAt)}.</p>
      <SchemaForm key={JSON.stringify(current)} name="system-settings" schema={update.body!} initial={current}
        submitLabel="Save system settings" onSubmit={async (body) => {
          setSaved(false);
          await patch('/api/settings/system', body);
          setSaved(true);
          data.reload(); // drawn again from what the API now holds
        }} />
      {saved && <p role="status">Saved the system settings.</p>}
    </section>
  );
}
