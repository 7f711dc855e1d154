import { useEffect, useState } from 'preact/hooks';
import { post, put } from '../api';
import { useAction } from '../hooks';
import { Link, navigate } from '../router';
import { can, useSession } from '../session';
import { ErrorNote } from '../components/status';

/** The environments the user may see; with only one, its overview straight away; with none, an admin creates the first. */
export function HomePage() {
  const { me } = useSession();
  useEffect(() => { if (me.environments.length === 1) navigate(`/env/${me.environments[0].id}`, true); }, [me]);
  if (!me.environments.length) {
    return can(me, 'admin') ? <CreateEnvironment /> : <p>No environment yet: an admin creates the first one here, through the API or a manifests folder.</p>;
  }
  return <ul class="plain">{me.environments.map((e) => <li><Link href={`/env/${e.id}`}>{e.name}</Link></li>)}</ul>;
}

/**
 * The first environment and the SSH key the controller reaches its servers with: pasted, or
 * generated here (the private half never leaves the controller; the public half is shown to copy).
 */
function CreateEnvironment() {
  const action = useAction();
  const [keyMode, setKeyMode] = useState<'generate' | 'paste'>('generate');
  const [created, setCreated] = useState<{ id: string; name: string; publicKey: string; fingerprint: string } | null>(null);
  if (created) {
    return (
      <section aria-labelledby="created-h">
        <h2 id="created-h">Environment {created.name} created</h2>
        <p>Add this public key to <code>~/.ssh/authorized_keys</code> of the SSH user on each of its servers:</p>
        <pre data-testid="public-key">{created.publicKey}</pre>
        <p class="reason">Fingerprint {created.fingerprint}</p>
        {/* a full load: the session (and its list of environments) is read again */}
        <a href={`/env/${created.id}`}>Open {created.name}</a>
      </section>
    );
  }
  return (
    <section aria-labelledby="create-env-h">
      <h2 id="create-env-h">Create an environment</h2>
      <p>No environment yet. Servers, images and services belong to an environment, which holds the SSH key the controller reaches its servers with.</p>
      <form onSubmit={(e) => {
        e.preventDefault();
        const form = new FormData(e.target as HTMLFormElement);
        action.run(async () => {
          const env = await post<{ id: string; name: string }>('/api/environments', { name: form.get('name') });
          const key = keyMode === 'generate'
            ? await post<{ publicKey: string; fingerprint: string }>(`/api/environments/${env.id}/ssh-key/generate`)
            : await put<{ publicKey: string; fingerprint: string }>(`/api/environments/${env.id}/ssh-key`, { privateKey: form.get('privateKey') });
          setCreated({ id: env.id, name: env.name, publicKey: key.publicKey, fingerprint: key.fingerprint });
        });
      }}>
        <label>Name <input name="name" required pattern="[a-zA-Z0-9][a-zA-Z0-9_.\-]{1,127}" title="2 to 128 letters, digits, dots, dashes and underscores" /></label>
        <fieldset>
          <legend>SSH key</legend>
          <label><input type="radio" name="keyMode" checked={keyMode === 'generate'} onChange={() => setKeyMode('generate')} /> Generate one</label>
          <label><input type="radio" name="keyMode" checked={keyMode === 'paste'} onChange={() => setKeyMode('paste')} /> Paste a private key</label>
          {keyMode === 'paste' && <label>Private key <textarea name="privateKey" rows={6} required autoComplete="off" spellcheck={false} /></label>}
        </fieldset>
        <ErrorNote error={action.error} />
        <button type="submit" class="primary" disabled={action.busy}>Create environment</button>
      </form>
    </section>
  );
}
