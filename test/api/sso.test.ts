// Single sign-on you can trust, against a real OpenID provider (oidc-provider on loopback), each
// sign-in the whole authorization code flow over HTTP (test/support/oidc-provider.ts): where a
// sign-in may send the browser with its token (`next`), and which user an IdP identity becomes
// (issuer + sub; an e-mail links to an existing account only when the admin allowed it and the
// provider says `email_verified: true`; a role claim never changes a user not made by SSO).
// The first service runs on a database that held users before identities were bound (an SSO
// user of that time must keep signing in as themselves).
import { expect } from 'chai';
import { createKnex } from '../../controller/store/knex.js';
import { hashPassword } from '../../controller/crypto/password.js';
import { listMigrations, migrateUpTo } from '../../controller/store/migrator.js';
import { signInThrough, startOidcProvider, type TestProvider } from '../support/oidc-provider.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, login, PASSWORD } from '../support/fixtures.js';
import { createEmptyDatabase } from '../support/test-database.js';
import { closedPort } from '../support/ports.js';
import type { HttpClient } from '../support/http-client.js';

const IDENTITIES_MIGRATION = '20261231I-bind-user-identities.ts';
const OIDC = { OIDC_CLIENT_ID: 'stevedore', OIDC_CLIENT_SECRET: 'a-client-secret-for-tests', OIDC_ROLE_CLAIM: 'groups', OIDC_ROLE_MAP: 'stevedore-admins=admin,ops=operator', OIDC_DEFAULT_ROLE: 'viewer' };

describe('single sign-on against a real OpenID provider: next, identities, e-mails and roles', function () {
  this.timeout(120_000);
  let idp: TestProvider;
  let svc: TestService;
  let linking: TestService;
  let admin: HttpClient;
  let linkingAdmin: HttpClient;
  const legacy = { id: '', email: 'legacy@example.test' };

  const me = async (s: TestService, token: string | null) => {
    expect(token, 'a token').to.be.a('string');
    const res = await s.http.withToken(token).get('/api/auth/me');
    expect(res.status).to.equal(200);
    return res.body as { id: string; email: string; role: string };
  };
  const userByEmail = (s: TestService, email: string) => s.services.users.findByEmail(email);
  const identities = (s: TestService, userId: string) => s.services.db('user_identities').where({ userId });

  before(async () => {
    const ports = [Number(new URL(await closedPort()).port), Number(new URL(await closedPort()).port)];
    const redirect = (port: number) => `http://127.0.0.1:${port}/api/auth/oidc/callback`;
    idp = await startOidcProvider({ redirectUri: ports.map(redirect), clientId: OIDC.OIDC_CLIENT_ID, clientSecret: OIDC.OIDC_CLIENT_SECRET, accounts: {} });

    // a database as the release before bound identities left it: a local admin and an SSO user
    // (its subject kept in the password column, as that release wrote it)
    const url = await createEmptyDatabase();
    const db = createKnex(url, 2);
    try {
      const all = listMigrations();
      await migrateUpTo(db, all[all.indexOf(IDENTITIES_MIGRATION) - 1].replace(/\.ts$/, ''));
      await db('users').insert({ email: 'admin@example.test', name: 'Admin', role: 'admin', passwordHash: await hashPassword(PASSWORD, 10) });
      const [row] = await db('users').insert({ email: legacy.email, name: 'Legacy', role: 'operator', passwordHash: 'oidc:legacy-sub' }).returning('*');
      legacy.id = row.id;
    } finally {
      await db.destroy();
    }
    svc = await startTestService({ ...OIDC, DATABASE_URL: url, PORT: String(ports[0]), OIDC_ISSUER: idp.issuer, OIDC_REDIRECT_URL: redirect(ports[0]) });
    admin = await login(svc.http, 'admin@example.test');
    linking = await startTestService({ ...OIDC, PORT: String(ports[1]), OIDC_ISSUER: idp.issuer, OIDC_REDIRECT_URL: redirect(ports[1]), OIDC_LINK_BY_EMAIL: 'true' });
    linkingAdmin = await bootstrapAdmin(linking.http);
  });
  after(async () => {
    await svc?.stop();
    await linking?.stop();
    await idp?.stop();
  });

  describe('next: only a path of this service', () => {
    beforeEach(() => { idp.accounts['next-user'] = { email: 'next-user@example.test', name: 'Next' }; });
    const refused = [
      ['a backslash', '/%5Cevil.example/x'],
      ['a tab', '/%09/evil.example/x'],
      ['a line break', '/%0D%0A/evil.example/x'],
      ['a // prefix', '//evil.example/x'],
      ['an absolute URL', 'https://evil.example/x'],
      ['a scheme-relative backslash', '%5C%5Cevil.example/x'],
      ['an encoded backslash in the path', '/%255Cevil.example/x'],
      ['a page that is not the dashboard', '/api/auth/oidc/login'],
      ['a page that is not the dashboard, reached through ..', '/x/..%2Fapi/users'],
    ];
    for (const [what, next] of refused) {
      it(`refuses ${what} (${next}) with 400 and sends nobody to the provider`, async () => {
        const out = await signInThrough(svc.url, 'next-user', `next=${next}`);
        expect(out.loginStatus, `landed on ${out.landed?.origin}${out.landed?.pathname}`).to.equal(400);
        expect(out.loginBody).to.include({ code: 'VALIDATION_ERROR', field: 'next' });
        expect((out.loginBody as { message: string }).message).to.match(/same-origin path/);
      });
    }

    it('sends the token only to this service, at the path asked for', async () => {
      const out = await signInThrough(svc.url, 'next-user', `next=${encodeURIComponent('/environments?tab=a b')}`);
      expect(out.error).to.equal(null);
      expect(out.landed!.origin).to.equal(new URL(svc.url).origin);
      expect(out.landed!.pathname + out.landed!.search).to.equal('/environments?tab=a%20b');
      expect((await me(svc, out.token)).email).to.equal('next-user@example.test');
      const home = await signInThrough(svc.url, 'next-user');
      expect(home.landed!.origin + home.landed!.pathname).to.equal(`${new URL(svc.url).origin}/`);
    });
  });

  describe('an e-mail alone never signs in as an existing account', () => {
    for (const [what, verified] of [['the string "false"', 'false'], ['missing', undefined], ['true', true]] as const) {
      it(`refuses an IdP account with the e-mail of a local admin, email_verified ${what}, linking off: no session, the admin unchanged`, async () => {
        const email = `local-admin-${String(verified)}@example.test`;
        const created = await admin.post('/api/users', { email, password: PASSWORD, name: 'Local admin', role: 'admin' });
        expect(created.status).to.equal(201);
        idp.accounts[`mallory-${String(verified)}`] = { email, email_verified: verified, groups: [] };
        const out = await signInThrough(svc.url, `mallory-${String(verified)}`);
        expect(out.token).to.equal(null);
        expect(out.landed!.pathname).to.equal('/login');
        expect(out.error).to.match(/already exists here/);
        expect(await userByEmail(svc, email)).to.include({ role: 'admin', origin: 'local' });
        expect(await identities(svc, created.body.id)).to.have.length(0);
        await login(svc.http, email); // the password still signs them in
      });
    }

    for (const [what, verified] of [['the string "false"', 'false'], ['missing', undefined], ['the string "true"', 'true']] as const) {
      it(`with linking on, still refuses email_verified ${what}`, async () => {
        const email = `linkable-${String(verified)}@example.test`;
        expect((await linkingAdmin.post('/api/users', { email, password: PASSWORD, name: 'Local', role: 'admin' })).status).to.equal(201);
        idp.accounts[`unverified-${String(verified)}`] = { email, email_verified: verified, groups: [] };
        const out = await signInThrough(linking.url, `unverified-${String(verified)}`);
        expect(out.token).to.equal(null);
        expect(out.error).to.match(/not verified/);
        expect(await userByEmail(linking, email)).to.include({ role: 'admin' });
      });
    }

    it('with linking on and email_verified true, links the local admin once and never changes its role from the claim', async () => {
      const email = 'linked-admin@example.test';
      const created = await linkingAdmin.post('/api/users', { email, password: PASSWORD, name: 'Linked', role: 'admin' });
      idp.accounts['linked-admin'] = { email, email_verified: true, groups: [] }; // maps to the default, viewer
      const out = await signInThrough(linking.url, 'linked-admin');
      expect(out.error).to.equal(null);
      expect(await me(linking, out.token)).to.include({ id: created.body.id, role: 'admin' });
      expect(await identities(linking, created.body.id)).to.have.length(1);
      // a second IdP account with the same e-mail does not take the linked account over
      idp.accounts['linked-admin-twin'] = { email, email_verified: true, groups: ['stevedore-admins'] };
      const twin = await signInThrough(linking.url, 'linked-admin-twin');
      expect(twin.token).to.equal(null);
      expect(twin.error).to.match(/another account of the provider/);
      // and a local operator linked with an admin's groups stays an operator
      const op = await linkingAdmin.post('/api/users', { email: 'linked-op@example.test', password: PASSWORD, name: 'Op', role: 'operator' });
      idp.accounts['linked-op'] = { email: 'linked-op@example.test', email_verified: true, groups: ['stevedore-admins'] };
      expect(await me(linking, (await signInThrough(linking.url, 'linked-op')).token)).to.include({ id: op.body.id, role: 'operator' });
    });
  });

  describe('issuer + sub is the identity', () => {
    it('keeps signing in as the same user after the e-mail changes at the provider, and the role follows the claim for users SSO made', async () => {
      idp.accounts.dora = { email: 'dora@example.test', name: 'Dora', groups: ['ops'] };
      const first = await me(svc, (await signInThrough(svc.url, 'dora')).token);
      expect(first).to.include({ email: 'dora@example.test', role: 'operator' });
      idp.accounts.dora = { email: 'dora.renamed@example.test', name: 'Dora', groups: ['stevedore-admins'] };
      const again = await me(svc, (await signInThrough(svc.url, 'dora')).token);
      expect(again).to.include({ id: first.id, role: 'admin' });
      expect(await userByEmail(svc, 'dora.renamed@example.test')).to.equal(undefined);
    });

    it('refuses a second IdP account with the e-mail of a user SSO made (linking off and on)', async () => {
      for (const s of [svc, linking]) {
        idp.accounts.erin = { email: 'erin@example.test', groups: ['stevedore-admins'] };
        const erin = await me(s, (await signInThrough(s.url, 'erin')).token);
        idp.accounts['erin-twin'] = { email: 'erin@example.test', email_verified: true, groups: [] };
        const twin = await signInThrough(s.url, 'erin-twin');
        expect(twin.token, s.url).to.equal(null);
        expect(twin.error).to.match(/already exists here|another account of the provider/);
        expect(await userByEmail(s, 'erin@example.test')).to.include({ id: erin.id, role: 'admin' });
        expect(await identities(s, erin.id)).to.have.length(1);
      }
    });

    it('binds a user SSO made before identities were kept on their next sign-in, by the subject it was made from', async () => {
      expect(await userByEmail(svc, legacy.email)).to.include({ origin: 'sso' });
      idp.accounts['legacy-impostor'] = { email: legacy.email, email_verified: true, groups: [] };
      const impostor = await signInThrough(svc.url, 'legacy-impostor');
      expect(impostor.token).to.equal(null);
      idp.accounts['legacy-sub'] = { email: legacy.email, groups: ['ops'] };
      expect(await me(svc, (await signInThrough(svc.url, 'legacy-sub')).token)).to.include({ id: legacy.id, role: 'operator' });
      const [bound] = await identities(svc, legacy.id);
      expect(bound).to.include({ issuer: idp.issuer, subject: 'legacy-sub' });
      // bound now: the e-mail may change at the provider
      idp.accounts['legacy-sub'] = { email: 'legacy-renamed@example.test', groups: ['ops'] };
      expect((await me(svc, (await signInThrough(svc.url, 'legacy-sub')).token)).id).to.equal(legacy.id);
    });

    it('creates a new user only when the provider does not call the e-mail unverified', async () => {
      idp.accounts.newcomer = { email: 'newcomer@example.test', email_verified: 'false' };
      const out = await signInThrough(svc.url, 'newcomer');
      expect(out.token).to.equal(null);
      expect(out.error).to.match(/not verified/);
      expect(await userByEmail(svc, 'newcomer@example.test')).to.equal(undefined);
      idp.accounts.newcomer = { email: 'newcomer@example.test', email_verified: undefined };
      const user = await me(svc, (await signInThrough(svc.url, 'newcomer')).token);
      expect(user).to.include({ email: 'newcomer@example.test', role: 'viewer' });
      expect(await userByEmail(svc, 'newcomer@example.test')).to.include({ origin: 'sso' });
    });
  });
});
