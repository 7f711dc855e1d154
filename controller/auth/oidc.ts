// Single sign-on: the authorization code flow with PKCE, through openid-client (the certified
// OpenID relying party for Node). The provider is discovered once; a sign-in's state, nonce and
// PKCE verifier travel sealed (AES-256-GCM, the secret box) in a short-lived cookie of this
// path only, so any replica can finish what another started and nothing is kept server-side.
import * as client from 'openid-client';
import type { SecretBox } from '../crypto/secret-box.js';
import type { OidcConfig } from './oidc-config.js';

/** A sign-in in flight, sealed in the cookie between /login and /callback. */
interface Pending { state: string; nonce: string; verifier: string; redirectUri: string; next: string; expires: number }

/** How long a user may take at the provider. */
export const PENDING_MS = 10 * 60_000;
export const PENDING_COOKIE = 'stevedore_oidc';

/**
 * Who the provider says signed in: `issuer` and `subject` from the ID token (what binds them to a
 * user), the e-mail and the rest of the claims as sent (controller/auth/oidc-sign-in.ts decides).
 */
export interface OidcIdentity { issuer: string; subject: string; email: string | null; name: string | null; claims: Record<string, unknown> }

export class OidcLogin {
  private discovered: Promise<client.Configuration> | null = null;

  constructor(private readonly c: OidcConfig, private readonly box: SecretBox) {}

  /** The provider's configuration, discovered once (again after a failure). */
  private configuration(): Promise<client.Configuration> {
    const issuer = new URL(this.c.issuer);
    this.discovered ??= client.discovery(issuer, this.c.clientId, this.c.clientSecret ?? undefined, undefined, {
      // a provider on plain http is only for a local one (tests, a dev IdP on this machine)
      execute: issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
    }).catch((e: unknown) => {
      this.discovered = null;
      throw e;
    });
    return this.discovered;
  }

  /**
   * The provider's authorization URL and the sealed cookie that must come back with its answer.
   * `next` is already a path of this service (same-origin-path.ts): the callback sends the
   * browser, with its token, to it on the origin of `redirectUri`.
   */
  async start(redirectUri: string, next: string): Promise<{ url: string; cookie: string }> {
    const config = await this.configuration();
    const pending: Pending = {
      state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), redirectUri, next,
      expires: Date.now() + PENDING_MS,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: 'openid email profile', state: pending.state, nonce: pending.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(pending.verifier), code_challenge_method: 'S256',
    });
    return { url: url.href, cookie: this.box.seal(JSON.stringify(pending)) };
  }

  /**
   * The provider's answer (the callback URL it sent the browser to) checked against the cookie:
   * state, PKCE, the ID token's signature, issuer, audience, expiry and nonce (openid-client).
   * Throws with a reason fit for the user; never a token in it.
   */
  async finish(callbackUrl: URL, sealed: string | undefined): Promise<{ identity: OidcIdentity; next: string; origin: string }> {
    const pending = this.open(sealed);
    const config = await this.configuration();
    const url = new URL(callbackUrl.pathname + callbackUrl.search, pending.redirectUri);
    const tokens = await client.authorizationCodeGrant(config, url, {
      pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce, idTokenExpected: true,
    });
    const idClaims = tokens.claims() as Record<string, unknown>;
    // the role claim and the e-mail may come only with the userinfo answer
    const info = await client.fetchUserInfo(config, tokens.access_token, String(idClaims.sub)).catch(() => ({}) as Record<string, unknown>);
    const claims = { ...info, ...idClaims };
    const email = typeof claims.email === 'string' && claims.email ? claims.email.toLowerCase() : null;
    const name = typeof claims.name === 'string' ? claims.name : null;
    return { identity: { issuer: String(idClaims.iss), subject: String(idClaims.sub), email, name, claims }, next: pending.next, origin: new URL(pending.redirectUri).origin };
  }

  private open(sealed: string | undefined): Pending {
    let pending: Pending;
    try {
      pending = JSON.parse(this.box.open(sealed ?? '')) as Pending;
    } catch {
      throw new Error('the sign-in was not started here, or its cookie is gone: start again');
    }
    if (pending.expires < Date.now()) throw new Error('the sign-in took longer than 10 minutes: start again');
    return pending;
  }
}
