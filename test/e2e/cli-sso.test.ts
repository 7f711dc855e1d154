// `stevedore login URL --sso` against a real OpenID provider (oidc-provider on loopback) and a real
// browser: the address the CLI prints goes through the provider's login and consent pages, back to
// the controller's callback and on to its /cli-token page, which shows the token; pasted into the
// waiting CLI, it becomes the saved context. No fleet: only the controller, the provider and a browser.
import { expect } from 'chai';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import YAML from 'yaml';
import { launchBrowser } from '../support/browser.js';
import { CliHome } from '../support/cli-run.js';
import { startOidcProvider } from '../support/oidc-provider.js';
import { closedPort } from '../support/ports.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('stevedore login --sso through an OpenID provider and the dashboard (e2e)', function () {
  this.timeout(180_000);
  let svc: TestService;
  let idp: Awaited<ReturnType<typeof startOidcProvider>>;
  let browser: Browser;
  let home: CliHome;

  before(async () => {
    const port = Number(new URL(await closedPort()).port);
    const redirectUri = `http://127.0.0.1:${port}/api/auth/oidc/callback`;
    idp = await startOidcProvider({
      redirectUri, clientId: 'stevedore', clientSecret: 'a-client-secret-for-tests',
      accounts: { alice: { email: 'alice@example.test', name: 'Alice', groups: ['stevedore-admins'] } },
    });
    svc = await startTestService({
      PORT: String(port), OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'stevedore', OIDC_CLIENT_SECRET: 'a-client-secret-for-tests',
      OIDC_REDIRECT_URL: redirectUri, OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'stevedore-admins=admin', OIDC_DEFAULT_ROLE: 'none',
    });
    browser = await launchBrowser();
    home = new CliHome();
  });
  after(async () => {
    home?.remove();
    await browser?.close();
    await svc?.stop();
    await idp?.stop();
  });

  it('prints the address, the browser lands on /cli-token with the token, and the token pasted is saved', async () => {
    // what the CLI prints: run it once with nothing pasted (exit 1, one line at the end)
    const none = await home.run(['login', svc.url, '--sso', '--no-browser']);
    expect(none.code).to.equal(1);
    const address = `${svc.url}/api/auth/oidc/login?next=%2Fcli-token`;
    expect(none.stderr).to.include(`Sign in through your browser at\n  ${address}\n`);
    expect(none.stderr.trim().split('\n').at(-1)).to.equal('stevedore: no token pasted: sign in at the address above and paste the token the page shows');

    const page = await (await browser.newContext()).newPage();
    await page.goto(address);
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('anything');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // the provider's consent, the first time
    await page.getByRole('heading', { level: 1, name: 'Sign in the CLI' }).waitFor();
    const landed = new URL(page.url());
    expect(landed.origin).to.equal(svc.url);
    expect(landed.pathname).to.equal('/cli-token');
    expect(landed.hash, 'the fragment is cleared at once').to.equal('');
    const field = page.getByTestId('cli-token');
    expect(await field.getAttribute('type'), 'hidden until asked').to.equal('password');
    const token = await field.inputValue();
    expect(token).to.match(/^eyJ/);

    const login = await home.run(['login', svc.url, '--sso', '--no-browser', '-e', 'prod'], { input: `${token}\n` });
    expect(login.code, login.stderr).to.equal(0);
    expect(login.stdout).to.include('Logged in').and.include('alice@example.test').and.include('(admin)');
    expect(login.stdout + login.stderr).not.to.include(token);
    const config = YAML.parse(fs.readFileSync(home.configFile, 'utf8'));
    expect(config.contexts[0]).to.include({ url: svc.url, token, environment: 'prod' });
    const me = await home.run(['get', 'environments']);
    expect(me.code, me.stderr).to.equal(0);
    const bad = await home.run(['login', svc.url, '--sso', '--no-browser'], { input: 'not-a-token\n' });
    expect(bad.code).to.equal(1);
    expect(bad.stderr.trim().split('\n').at(-1)).to.match(/^stevedore: 401 /);
  });
});
