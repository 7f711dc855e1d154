import './style-nonce';
import { render } from 'preact';
import { App } from './app';
import { setToken } from './api';
import './style.css';

// single sign-on hands the token over in the fragment (never sent to a server): keep it, then
// take it out of the address bar and the history at once
const handed = new URLSearchParams(location.hash.slice(1)).get('oidc_token');
if (handed) {
  setToken(handed);
  history.replaceState(null, '', location.pathname + location.search);
}

render(<App />, document.getElementById('app')!);
