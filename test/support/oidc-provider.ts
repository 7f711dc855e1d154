// A real OpenID provider for tests: the oidc-provider package (an OpenID-certified
// implementation), on loopback, with its own development login and consent pages. Accounts sign
// in by their id with any password.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount { email: string; name: string; groups: string[] }

export async function startOidcProvider(o: { redirectUri: string; clientId: string; clientSecret: string; accounts: Record<string, TestAccount> }) {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [{
      client_id: o.clientId, client_secret: o.clientSecret, redirect_uris: [o.redirectUri],
      grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic',
    }],
    pkce: { required: () => true, methods: ['S256'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
    async findAccount(_ctx, sub) {
      const a = o.accounts[sub];
      return a && { accountId: sub, claims: async () => ({ sub, email: a.email, email_verified: true, name: a.name, groups: a.groups }) };
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['stevedore-test-oidc-cookie-key'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
