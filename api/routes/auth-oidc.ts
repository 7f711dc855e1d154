// Single sign-on (docs/sso.md): /login sends the browser to the OpenID provider, /callback takes
// its answer back, creates the user on first sign-in (or updates their role), and hands the
// dashboard a token in the URL's fragment (never sent to a server, cleared by the page at once).
// Both answer the browser with redirects: a failure lands on the sign-in page with the reason.
import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { issueJwt } from '../../controller/auth/jwt.js';
import { OidcLogin, PENDING_COOKIE, PENDING_MS } from '../../controller/auth/oidc.js';
import { roleFromClaims } from '../../controller/auth/oidc-config.js';
import { messageOf } from '../../controller/deploy/message-of.js';
import { DependencyError, originOf } from '../../controller/errors/dependency-error.js';
import { result, route } from '../http/route.js';
import { str } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

const CALLBACK = '/api/auth/oidc/callback';
/** Where a sign-in may return to: a path of the dashboard, never another site. */
const safeNext = (next: unknown) => (typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/api/') ? next : '/');
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
  const back = (path: string, fragment: Record<string, string>) => redirect(`${path}#${new URLSearchParams(fragment)}`);

  return [
    route<unknown, { next?: string }>({
      method: 'GET', path: '/api/auth/oidc/login', operationId: 'oidcLogin', tag: 'auth', access: 'public', audit: false,
      summary: "Start single sign-on: a redirect to the OpenID provider (authorization code with PKCE); 404 when it is not configured",
      query: { next: str({ maxLength: 2000, description: 'The dashboard path to return to' }) }, status: 302, alsoAnswers: { 302: REDIRECT }, errors: [404, 503],
      async handler(ctx, { query }) {
        const login = enabled();
        const redirectUri = s.config.oidc!.redirectUrl ?? `${ctx.protocol}://${ctx.host}${CALLBACK}`;
        const { url, cookie: sealed } = await login.start(redirectUri, safeNext(query.next)).catch((e: unknown) => {
          s.logger.warn('single sign-on: the provider could not be reached', { issuer: s.config.oidc!.issuer, error: messageOf(e) });
          throw new DependencyError('the OpenID provider', 'unreachable', `the OpenID provider ${originOf(s.config.oidc!.issuer)} could not be reached`, { cause: e });
        });
        cookie(ctx, sealed);
        return redirect(url);
      },
    }),

    route({
      method: 'GET', path: CALLBACK, operationId: 'oidcCallback', tag: 'auth', access: 'public', audit: false,
      summary: 'Where the provider sends the browser back: signs the user in (created on first sign-in, role from the claim mapping) and returns to the dashboard',
      status: 302, alsoAnswers: { 302: REDIRECT }, errors: [404],
      async handler(ctx) {
        const login = enabled();
        const sealed = ctx.cookies.get(PENDING_COOKIE);
        cookie(ctx, null);
        try {
          const providerError = ctx.query.error;
          if (typeof providerError === 'string') throw new Error(`the provider refused: ${String(ctx.query.error_description ?? providerError)}`);
          const { identity, next } = await login.finish(new URL(ctx.originalUrl, 'http://callback.invalid'), sealed);
          const role = roleFromClaims(identity.claims, s.config.oidc!);
          if (!role) throw new Error(`${identity.email} holds none of the groups that give a role here`);
          const existing = await s.users.findByEmail(identity.email);
          const user = existing
            ? (existing.role === role ? existing : (await s.users.update(existing.id, { role }))!)
            : await s.users.insert({ email: identity.email, name: identity.name, role, passwordHash: `oidc:${identity.subject}` });
          await s.users.recordLogin(user.id);
          await s.audit.record({
            actorType: 'user', actorId: user.id, actorName: user.email, action: existing ? 'oidcLogin' : 'oidcSignUp', resourceType: 'users',
            resourceId: user.id, requestId: ctx.state.requestId, ip: ctx.state.clientIp, details: { role, issuer: s.config.oidc!.issuer },
          });
          const { token } = issueJwt(s.config.jwtSecret, s.config.jwtExpiresIn, user);
          return back(next, { oidc_token: token });
        } catch (e) {
          s.logger.warn('single sign-on failed', { error: messageOf(e) });
          return back('/login', { oidc_error: messageOf(e).slice(0, 300) });
        }
      },
    }),
  ];
}
