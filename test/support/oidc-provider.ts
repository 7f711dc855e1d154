// A real OpenID provider for tests: the oidc-provider package (an OpenID-certified
// implementation), on loopback, with its own development login and consent pages. Accounts sign
// in by their id with any password; their claims are what the test gives (and may change between
// sign-ins: `accounts` is read on every one).
//
// `signInThrough` is the authorization code flow as a browser walks it, over plain HTTP: Stevedore's
// /login, every redirect followed with a cookie jar, the provider's login and consent forms
// submitted, and Stevedore's callback answer returned as it is (not followed), so a test sees
// exactly where the browser would be sent and with what.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * An account's claims. `email_verified` is `true` unless given; give it `undefined` to leave it
 * out, or any other value (the string "false"…) to send that value as it is.
 */
export interface TestAccount { email?: string; name?: string; groups?: string[]; email_verified?: unknown; [claim: string]: unknown }

export interface TestProvider {
  issuer: string;
  /** Read on every sign-in: change an account's claims as the provider's admin would. */
  accounts: Record<string, TestAccount>;
  stop(): Promise<void>;
}

export async function startOidcProvider(o: { redirectUri: string | string[]; clientId: string; clientSecret: string; accounts: Record<string, TestAccount> }): Promise<TestProvider> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = o.accounts;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: o.clientId, client_secret: o.clientSecret, redirect_uris: [o.redirectUri].flat(),
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups', 'roles'] },
    async findAccount(_ctx, sub) {
      const a = accounts[sub];
      if (!a) return undefined;
      return {
        accountId: sub,
        claims: async () => Object.fromEntries(Object.entries({ email_verified: true, ...a, sub }).filter(([, v]) => v !== undefined)) as { sub: string },
      };
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['stevedore-test-oidc-cookie-key'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    accounts,
    stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Cookies as a browser keeps them: by host (not port) and path. */
class CookieJar {
  private cookies = new Map<string, { host: string; path: string; name: string; value: string }>();

  take(url: URL, res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((x) => x.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      const attr = (k: string) => attrs.find((a) => a.toLowerCase().startsWith(`${k}=`))?.slice(k.length + 1);
      const path = attr('path') ?? '/';
      const key = `${url.hostname} ${path} ${name}`;
      const expires = attr('expires');
      if (attr('max-age') === '0' || (expires && Date.parse(expires) <= Date.now())) this.cookies.delete(key);
      else this.cookies.set(key, { host: url.hostname, path, name, value });
    }
  }

  header(url: URL): string {
    return [...this.cookies.values()]
      .filter((c) => c.host === url.hostname && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

export interface SignInOutcome {
  /** Stevedore's answer to the first request (302 to the provider, or its refusal). */
  loginStatus: number;
  loginBody: unknown;
  /** Where Stevedore's callback sends the browser, resolved against the service's URL; null if the flow never reached it. */
  landed: URL | null;
  /** The token handed over in the fragment, or the reason of a failure (`oidc_error`). */
  token: string | null;
  error: string | null;
}

/**
 * Signs `account` in through the real flow. `query` is the raw query string of
 * /api/auth/oidc/login (e.g. `next=%2F%5Cevil.example%2Fx`), sent as it is.
 */
export async function signInThrough(serviceUrl: string, account: string, query = ''): Promise<SignInOutcome> {
  const jar = new CookieJar();
  const service = new URL(serviceUrl);
  const send = async (url: URL, init: RequestInit = {}) => {
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header(url) } });
    jar.take(url, res);
    return res;
  };
  const start = new URL(`/api/auth/oidc/login${query ? `?${query}` : ''}`, service);
  const first = await send(start);
  if (first.status !== 302) {
    const text = await first.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON */ }
    return { loginStatus: first.status, loginBody: body, landed: null, token: null, error: null };
  }
  await first.arrayBuffer();
  let url = new URL(first.headers.get('location')!, start);
  for (let hop = 0; hop < 20; hop++) {
    const res = await send(url);
    if (url.host === service.host && url.pathname === '/api/auth/oidc/callback') {
      await res.arrayBuffer();
      if (res.status !== 302) throw new Error(`the callback answered ${res.status}`);
      const landed = new URL(res.headers.get('location')!, url);
      const fragment = new URLSearchParams(landed.hash.slice(1));
      return { loginStatus: 302, loginBody: null, landed, token: fragment.get('oidc_token'), error: fragment.get('oidc_error') };
    }
    if (res.status >= 300 && res.status < 400) {
      await res.arrayBuffer();
      url = new URL(res.headers.get('location')!, url);
      continue;
    }
    const page = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status} at ${url.pathname}: ${page.slice(0, 300)}`);
    // the provider's own login or consent form, submitted as the browser would
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !prompt) throw new Error(`no login or consent form at ${url.pathname}`);
    const form = new URLSearchParams(prompt === 'login' ? { prompt, login: account, password: 'any password' } : { prompt });
    const posted = await send(new URL(action, url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    await posted.arrayBuffer();
    if (posted.status < 300 || posted.status >= 400) throw new Error(`the provider's ${prompt} form answered ${posted.status}`);
    url = new URL(posted.headers.get('location')!, url);
  }
  throw new Error('more than 20 redirects');
}
