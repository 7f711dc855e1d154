import { useEffect, useState } from 'preact/hooks';
import { post, put } from '../api';
import { navigate } from '../router';
import { can, useSession } from '../session';
import { ErrorNote } from '../components/status';
import { SchemaForm } from '../components/schema-form';
import { useLoad } from '../hooks';
import { operations } from '../schema';
import { resourcePage } from './resources';
import type { KindView } from '../kinds';

/** The environments the user may see; with only one, its overview straight away; with none, an admin creates the first. */
export function HomePage() {
  const { me } = useSession();
  useEffect(() => { if (me.environments.length === 1) navigate(`/env/${me.environments[0].id}`, true); }, [me]);
  if (!me.environments.length) {
    return can(me, 'installation') ? <CreateEnvironment /> : <p>No environment yet: an admin creates the first one here, through the API or a manifests folder.</p>;
  }
  return <EnvironmentsPage params={{}} />;
}

/** Every environment: open, edit, delete, and create one with its SSH key (admins). */
const ENVIRONMENTS: KindView = {
  key: 'environments', title: 'Environments', noun: 'environment', list: 'listEnvironments', create: 'createEnvironment',
  update: 'updateEnvironment', remove: 'deleteEnvironment', editRole: 'admin', createRole: 'installation',
  name: (e) => e.name,
  href: (_envId, e) => `/env/${e.id}`,
  columns: [{ label: 'Description', cell: (e) => e.description ?? '—' }],
  createForm: () => <CreateEnvironment />,
};

export const EnvironmentsPage = resourcePage(ENVIRONMENTS);

/**
 * The first environment and the SSH key the controller reaches its servers with: pasted, or
 * generated here (the private half never leaves the controller; the public half is shown to copy).
 */
function CreateEnvironment() {
  const schema = useLoad(async (signal) => (await operations(signal)).get('createEnvironment')!.body!, []);
  const [privateKey, setPrivateKey] = useState('');
  const [keyMode, setKeyMode] = useState<'generate' | 'paste'>('generate');
  const [created, setCreated] = useState<{ id: string; name: string; publicKey: string; fingerprint: string } | null>(null);
  if (created) {
    return (
      <section aria-labelledby="created-h">
        <h2 id="created-h">Environment {created.name} created</h2>
        <p>Add this public key to <code>~/.ssh/authorized_keys</code> of the SSH user on each of its servers:</p>
        <pre data-testid="public-key" class="wrap">{created.publicKey}</pre>
        <p class="reason wrap">Fingerprint {created.fingerprint}</p>
        {/* a full load: the session (and its list of environments) is read again */}
        <a href={`/env/${created.id}`}>Open {created.name}</a>
      </section>
    );
  }
  return (
    <section aria-labelledby="create-env-h">
      <h2 id="create-env-h">Create an environment</h2>
      <p>No environment yet. Servers, images and services belong to an environment, which holds the SSH key the controller reaches its servers with.</p>
      {schema.error && <ErrorNote error={schema.error} />}
      {schema.data && (
        <SchemaForm name="create-environment" schema={schema.data} submitLabel="Create environment" onSubmit={async (body) => {
          const env = await post<{ id: string; name: string }>('/api/environments', body);
          const key = keyMode === 'generate'
            ? await post<{ publicKey: string; fingerprint: string }>(`/api/environments/${env.id}/ssh-key/generate`)
            : await put<{ publicKey: string; fingerprint: string }>(`/api/environments/${env.id}/ssh-key`, { privateKey });
          setCreated({ id: env.id, name: env.name, publicKey: key.publicKey, fingerprint: key.fingerprint });
        }}>
          <fieldset>
            <legend>SSH key</legend>
            <label class="check"><input type="radio" name="keyMode" checked={keyMode === 'generate'} onChange={() => setKeyMode('generate')} /> Generate one</label>
            <label class="check"><input type="radio" name="keyMode" checked={keyMode === 'paste'} onChange={() => setKeyMode('paste')} /> Paste a private key</label>
            {keyMode === 'paste' && (
              <label>Private key <textarea name="privateKey" class="secret" data-secret rows={6} required autoComplete="off" spellcheck={false}
                onInput={(e) => setPrivateKey((e.target as HTMLTextAreaElement).value)} /></label>
            )}
          </fieldset>
        </SchemaForm>
      )}
    </section>
  );
}
