// Single sign-on (docs/sso.md): /login sends the browser to the OpenID provider, /callback takes
// its answer back, signs the identity in (controller/auth/oidc-sign-in.ts decides which user it
// is), and hands the dashboard a token in the URL's fragment (never sent to a server, cleared by
// the page at once), on this service's own origin only. Both answer the browser with redirects: a
// failure lands on the sign-in page with the reason; a `next` that is not a page of this service
// is refused before anyone is sent anywhere.
import type { Services } from '../../controller/services.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import { issueJwt } from '../../controller/auth/jwt.js';
import { OidcLogin, PENDING_COOKIE, PENDING_MS } from '../../controller/auth/oidc.js';
import { signInWithOidc } from '../../controller/auth/oidc-sign-in.js';
import { sameOriginPath } from '../../controller/auth/same-origin-path.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { DependencyError, originOf } from '../../controller/errors/dependency-error.js';
import { result, route } from '../http/route.js';
import { str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

const CALLBACK = '/api/auth/oidc/callback';
const REDIRECT = { description: 'A redirect: to the provider, or back to the dashboard' };

export default function oidcRoutes(s: Services) {
  const oidc = s.config.oidc ? new OidcLogin(s.config.oidc, s.secretBox) : null;
  const enabled = () => {
    if (!oidc) throw notFound('Single sign-on (OIDC_ISSUER is not set)');
    return oidc;
  };
  const cookie = (ctx: Ctx, value: string | null) => ctx.cookies.set(PENDING_COOKIE, value, {
    httpOnly: true, sameSite: 'lax', path: '/api/auth/oidc', maxAge: value ? PENDING_MS : 0, secure: ctx.protocol === 'https', overwrite: true,
  });
  // a body of its own: Koa answers an empty one 204, which a browser does not follow
  const redirect = (location: string) => result(302, 'Redirecting…', { location, 'cache-control': 'no-store' });
  /** Back to a page of this service (`origin`), never anywhere else: the fragment may hold a token. */
  const back = (origin: string, path: string, fragment: Record<string, string>) => {
    const to = new URL(sameOriginPath(path, origin) ?? '/', origin);
    to.hash = new URLSearchParams(fragment).toString();
    return redirect(to.href);
  };

  return [
    route<unknown, { next?: string }>({
      method: 'GET', path: '/api/auth/oidc/login', operationId: 'oidcLogin', tag: 'auth', access: 'public', audit: false,
      summary: "Start single sign-on: a redirect to the OpenID provider (authorization code with PKCE); 404 when it is not configured",
      query: { next: str({ maxLength: 2000, description: 'The dashboard page to return to: a path of this service (a same-origin path, no backslash or control character, not under /api); anything else is 400' }) },
      status: 302, alsoAnswers: { 302: REDIRECT }, errors: [400, 404, 503],
      async handler(ctx, { query }) {
        const login = enabled();
        const redirectUri = s.config.oidc!.redirectUrl ?? `${ctx.protocol}://${ctx.host}${CALLBACK}`;
        const next = sameOriginPath(query.next || '/', new URL(redirectUri).origin);
        if (next === null) throw validationError('next must be a same-origin path of a dashboard page (starting with one /, no backslash or control character, not under /api)', 'next');
        const { url, cookie: sealed } = await login.start(redirectUri, next).catch((e: unknown) => {
          s.logger.warn('single sign-on: the provider could not be reached', { issuer: s.config.oidc!.issuer, error: messageOf(e) });
          throw new DependencyError('the OpenID provider', 'unreachable', `the OpenID provider ${originOf(s.config.oidc!.issuer)} could not be reached`, { cause: e });
        });
        cookie(ctx, sealed);
        return redirect(url);
      },
    }),

    route({
      method: 'GET', path: CALLBACK, operationId: 'oidcCallback', tag: 'auth', access: 'public', audit: false,
      summary: 'Where the provider sends the browser back: signs the identity (issuer + sub) in as its user (created on first sign-in, role from the claim mapping for users single sign-on made) and returns to the dashboard',
      status: 302, alsoAnswers: { 302: REDIRECT }, errors: [404],
      async handler(ctx) {
        const login = enabled();
        const sealed = ctx.cookies.get(PENDING_COOKIE);
        cookie(ctx, null);
        // until the sealed cookie is open, the only origin known to be this service's is the configured callback's or the request's
        let origin = new URL(s.config.oidc!.redirectUrl ?? `${ctx.protocol}://${ctx.host}`).origin;
        try {
          const providerError = ctx.query.error;
          if (typeof providerError === 'string') throw new Error(`the provider refused: ${String(ctx.query.error_description ?? providerError)}`);
          const finished = await login.finish(new URL(ctx.originalUrl, 'http://callback.invalid'), sealed);
          origin = finished.origin;
          const { user, created, linked } = await signInWithOidc(s, finished.identity, s.config.oidc!);
          await s.users.recordLogin(user.id);
          await s.audit.record({
            actorType: 'user', actorId: user.id, actorName: user.email, action: created ? 'oidcSignUp' : 'oidcLogin', resourceType: 'users',
            resourceId: user.id, requestId: ctx.state.requestId, ip: ctx.state.clientIp,
            details: { role: user.role, issuer: finished.identity.issuer, subject: finished.identity.subject, ...(linked ? { linked: true } : {}) },
          });
          const { token } = issueJwt(s.config.jwtSecret, s.config.jwtExpiresIn, user);
          return back(origin, finished.next, { oidc_token: token });
        } catch (e) {
          s.logger.warn('single sign-on failed', { error: messageOf(e) });
          return back(origin, '/login', { oidc_error: messageOf(e).slice(0, 300) });
        }
      },
    }),
  ];
}
