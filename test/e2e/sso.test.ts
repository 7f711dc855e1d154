// Single sign-on against a real OpenID provider (oidc-provider, run by the test on loopback) in a
// real browser: the dashboard's button, the provider's own login and consent pages, back with a
// token; the user is created on first sign-in with the role its groups map to, and one whose
// groups map to nothing is sent back with the reason. Password sign-in is off here.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { closedPort } from '../support/ports.js';

describe('single sign-on through an OpenID provider (e2e)', function () {
  this.timeout(120_000);
  let svc: TestService;
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;
  let browser: Browser;

  before(async () => {
    const port = Number(new URL(await closedPort()).port);
    const redirectUri = `http://127.0.0.1:${port}/api/auth/oidc/callback`;
    idp = await startOidcProvider({
      redirectUri, clientId: 'stevedore', clientSecret: 'a-client-secret-for-tests',
      accounts: {
        alice: { email: 'alice@example.test', name: 'Alice', groups: ['staff', 'stevedore-admins'] },
        bob: { email: 'bob@example.test', name: 'Bob', groups: ['ops'] },
        carol: { email: 'carol@example.test', name: 'Carol', groups: ['marketing'] },
      },
    });
    svc = await startTestService({
      PORT: String(port), OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'stevedore', OIDC_CLIENT_SECRET: 'a-client-secret-for-tests',
      OIDC_REDIRECT_URL: redirectUri, OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'stevedore-admins=admin,ops=operator', OIDC_DEFAULT_ROLE: 'none',
      PASSWORD_LOGIN: 'false',
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    await idp?.stop();
  });

  /** Through the dashboard's button and the provider's pages, as `account`, from the sign-in page at `loginPath`. */
  async function signIn(account: string, loginPath = '/login') {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${svc.url}${loginPath}`);
    await page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await page.locator('input[name="login"]').fill(account);
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    // the provider's consent page, the first time
    await page.locator('button[type="submit"]').click();
    return page;
  }

  it('creates the user on first sign-in with the role its groups map to, and signs them in', async () => {
    const page = await signIn('alice');
    await page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    expect(page.url()).to.not.include('oidc_token');
    const user = await svc.services.db('users').where({ email: 'alice@example.test' }).first();
    expect(user).to.include({ role: 'admin', name: 'Alice' });
    const token = await page.evaluate(() => (globalThis as unknown as { sessionStorage: { getItem(k: string): string | null } }).sessionStorage.getItem('stevedore.token'));
    const me = await fetch(`${svc.url}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json());
    expect(me).to.include({ email: 'alice@example.test', role: 'admin' });
    const bob = await signIn('bob');
    await bob.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
    expect(await svc.services.db('users').where({ email: 'bob@example.test' }).first()).to.include({ role: 'operator' });
  });

  it('returns to the page the sign-in was asked from, and to the start page for a next that leaves the site', async () => {
    const asked = await signIn('alice', `/login?next=${encodeURIComponent('/servers?x=1')}`);
    await asked.waitForURL((u) => u.pathname === '/servers');
    expect(new URL(asked.url()).origin).to.equal(new URL(svc.url).origin);
    for (const next of ['/\\evil.example/x', '/\t/evil.example/x', '//evil.example/x']) {
      const page = await signIn('alice', `/login?next=${encodeURIComponent(next)}`);
      await page.getByRole('heading', { level: 1, name: 'Environments' }).waitFor();
      expect(new URL(page.url()).origin + new URL(page.url()).pathname, next).to.equal(`${new URL(svc.url).origin}/`);
    }
  });

  it('sends an account whose groups give no role back to the sign-in page with the reason, and creates no user', async () => {
    const page = await signIn('carol');
    await page.getByText('Single sign-on failed: carol@example.test holds none of the groups that give a role here').waitFor();
    expect(await svc.services.db('users').where({ email: 'carol@example.test' }).first()).to.equal(undefined);
  });

  it('refuses password sign-in and registration when it is off', async () => {
    const login = await svc.http.post('/api/auth/login', { email: 'alice@example.test', password: 'whatever-password' });
    expect(login.status).to.equal(403);
    expect(login.body.message).to.match(/Password sign-in is off/);
    expect((await svc.http.post('/api/auth/register', { email: 'x@example.test', password: 'a-long-password' })).status).to.equal(403);
    expect((await svc.http.get('/api/auth/setup')).body).to.deep.equal({ needsFirstAdmin: false, passwordLogin: false, sso: true });
  });
});
