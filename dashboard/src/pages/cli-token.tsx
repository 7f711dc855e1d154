import { useState } from 'preact/hooks';
import { currentToken } from '../api';
import { useSession } from '../session';

/**
 * Where `stevedore login URL --sso` sends the browser after single sign-on (next=/cli-token): the
 * signed-in user's token, to paste into the terminal that waits for it. It stays on this page of
 * the controller's own origin: nothing sends it anywhere else.
 */
export function CliTokenPage() {
  const { me } = useSession();
  const [shown, setShown] = useState(false);
  const [copied, setCopied] = useState(false);
  const token = currentToken() ?? '';
  const copy = async () => {
    await navigator.clipboard.writeText(token);
    setCopied(true);
  };
  return (
    <section>
      <p>Signed in as {me.email ?? me.name}. Paste this token into the terminal where <code>stevedore login --sso</code> waits; it is valid as long as this sign-in.</p>
      <label>Token {shown
        ? <input type="text" readOnly value={token} aria-label="CLI token" data-testid="cli-token" style={{ width: '100%' }} />
        : <input type="password" readOnly value={token} aria-label="CLI token" data-testid="cli-token" style={{ width: '100%' }} />}</label>
      <p>
        <button type="button" onClick={() => setShown(!shown)}>{shown ? 'Hide' : 'Show'}</button>{' '}
        <button type="button" onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
      </p>
    </section>
  );
}
