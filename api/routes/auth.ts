import type { Services } from '../../controller/services.js';
import { AppError, forbiddenRole, unauthorized } from '../../controller/errors/app-error.js';
import { dummyPasswordHash, hashPassword, verifyPassword } from '../../controller/crypto/password.js';
import { issueJwt } from '../../controller/auth/jwt.js';
import { assertLoginAllowed, LOCKOUT_MS, MAX_FAILED_LOGINS } from '../../controller/auth/login-throttle.js';
import { toUser } from '../../controller/store/repositories/users.js';
import { isUnrestrictedAdmin, roleIn, scopesFor } from '../../controller/auth/policy.js';
import { route } from '../http/route.js';
import { arrayOf, enumOf, object, str, timestamp, uuid, type Schema, bool } from '../http/schema.js';
import { userSchema, userRead } from './users.js';

const credentials = object({ email: userSchema.email, password: { type: 'string', minLength: 1, maxLength: 1024 } }, ['email', 'password']);

export default function authRoutes(s: Services) {
  const assertPasswordLogin = () => {
    if (!s.config.passwordLogin) throw forbiddenRole('Password sign-in is off here (PASSWORD_LOGIN=false)', 'Sign in with single sign-on: GET /api/auth/oidc/login');
  };
  return [
    route<{ email: string; password: string; name?: string }>({
      method: 'POST', path: '/api/auth/register', operationId: 'register', tag: 'auth', access: 'public',
      summary: 'Create the first user, who becomes admin; refused once any user exists',
      body: object({ email: userSchema.email, password: userSchema.password, name: userSchema.name }, ['email', 'password']),
      status: 201, response: userRead, errors: [403],
      async handler(ctx, { body }) {
        assertPasswordLogin();
        const passwordHash = await hashPassword(body.password, s.config.passwordHashCost);
        const user = await s.transaction(async (trx) => {
          // Serialises concurrent first registrations: only one can see an empty table.
          await s.users.lockTable(trx);
          if ((await s.users.count(trx)) > 0) {
            throw forbiddenRole('Registration is closed', 'Ask an admin to create an account for you');
          }
          return s.users.insert({ email: body.email, name: body.name ?? null, role: 'admin', passwordHash }, trx);
        });
        ctx.state.audit = { resourceType: 'users', resourceId: user.id, details: { role: 'admin' } };
        return toUser(user);
      },
    }),

    route({
      method: 'GET', path: '/api/auth/setup', operationId: 'getSetup', tag: 'auth', access: 'public', envExempt: true,
      summary: 'Whether the install has no user yet (the sign-in page then offers to create the first admin)',
      response: object({ needsFirstAdmin: bool, passwordLogin: bool, sso: bool }, ['needsFirstAdmin', 'passwordLogin', 'sso']),
      handler: async () => ({
        needsFirstAdmin: s.config.passwordLogin && (await s.users.count()) === 0, passwordLogin: s.config.passwordLogin, sso: !!s.config.oidc,
      }),
    }),

    route<{ email: string; password: string }>({
      method: 'POST', path: '/api/auth/login', operationId: 'login', tag: 'auth', access: 'public', audit: false,
      summary: 'Exchange email and password for a JWT',
      body: credentials,
      response: object({ token: str(), expiresAt: timestamp, user: userRead }),
      errors: [401, 403],
      async handler(ctx, { body }) {
        assertPasswordLogin();
        const user = await s.users.findByEmail(body.email);
        if (user) assertLoginAllowed(user);
        const ok = await verifyPassword(body.password, user?.passwordHash ?? dummyPasswordHash(s.config.passwordHashCost));
        if (!user || !ok) {
          if (user) {
            // A failure after the lock-out window starts a fresh count.
            const stale = user.lastFailedLoginAt && Date.now() - new Date(user.lastFailedLoginAt).getTime() > LOCKOUT_MS;
            await s.users.recordFailedLogin(user.id, stale ? 1 : Math.min(user.failedLoginCount + 1, MAX_FAILED_LOGINS * 10));
            await s.audit.record({ actorType: 'user', actorId: user.id, actorName: user.email, action: 'loginFailed',
              resourceType: 'users', resourceId: user.id, requestId: ctx.state.requestId, ip: ctx.state.clientIp });
          }
          throw unauthorized('Invalid email or password');
        }
        await s.users.recordLogin(user.id);
        const { token, expiresAt } = issueJwt(s.config.jwtSecret, s.config.jwtExpiresIn, user);
        return { token, expiresAt, user: { id: user.id, email: user.email, name: user.name, role: user.role } };
      },
    }),

    route({
      method: 'GET', path: '/api/auth/me', operationId: 'getMe', tag: 'auth', access: 'authenticated', envExempt: true,
      summary: 'The caller: role, visible environments, scopes, token type, and whether it may act on the whole installation',
      response: object({
        id: uuid, email: str({ nullable: true }), name: str({ nullable: true }), role: enumOf('viewer', 'operator', 'admin'),
        environments: arrayOf(object({ id: uuid, name: str(), role: enumOf('viewer', 'operator', 'admin') }) as Schema), scopes: arrayOf(str()), tokenType: enumOf('jwt', 'api_token'),
        unrestricted: { ...bool, description: 'An unrestricted admin: lowered in no environment, with no token role cap or environment limit; only such a caller may use the installation\'s routes (users, others\' tokens, service accounts, system settings, memberships, new environments)' },
      }),
      async handler(ctx) {
        const actor = ctx.state.actor!;
        const user = actor.type === 'user' ? await s.users.findById(actor.id) : undefined;
        const environments = await s.environments.names(actor.environmentIds);
        if (!user && actor.type === 'user') throw new AppError('UNAUTHORIZED', 'The user no longer exists');
        return {
          id: actor.id,
          email: user?.email ?? null,
          name: user ? user.name : actor.name,
          role: actor.role,
          // the caller's role in each: a membership there lowers it (never raises it)
          environments: environments.map((e) => ({ ...e, role: roleIn(actor, e.id) })),
          scopes: scopesFor(actor.role),
          tokenType: actor.tokenType,
          // the same decision the installation's routes take (policy.ts), so the dashboard offers only what they accept
          unrestricted: isUnrestrictedAdmin(actor),
        };
      },
    }),
  ];
}
