import type { Services } from '../../controller/services.js';
import { conflict, notFound, unauthorized, validationError } from '../../controller/errors/app-error.js';
import { hashPassword, verifyPassword } from '../../controller/crypto/password.js';
import { toUser, type UserRow } from '../../controller/store/repositories/users.js';
import { clearAuthCache } from '../../controller/auth/authenticate-token.js';
import { route } from '../http/route.js';
import { enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid, type Schema } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

export const userSchema = {
  email: str({ format: 'email', maxLength: 320 }),
  password: str({ minLength: 8, maxLength: 1024 }),
  name: nullable(str({ maxLength: 200 })),
  role: enumOf('viewer', 'operator', 'admin'),
};
export const userRead = object({
  id: uuid, email: str(), name: nullable(str()), role: userSchema.role,
  lastLoginAt: nullableTimestamp, createdAt: timestamp, updatedAt: timestamp,
});

/** The user of this id, or 404 User (also the environment members' routes). */
export async function loadUser(s: Services, id: string): Promise<UserRow> {
  const user = await s.users.findById(id);
  if (!user) throw notFound('User');
  return user;
}

async function assertNotLastAdmin(s: Services, user: UserRow): Promise<void> {
  if (user.role !== 'admin') return;
  if ((await s.users.adminCount()) <= 1) throw conflict('This is the last admin', 'Make another user admin first');
}

const isSelf = (ctx: Ctx, id: string) => ctx.state.actor?.type === 'user' && ctx.state.actor.id === id;

export default function userRoutes(s: Services) {
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/users', operationId: 'listUsers', tag: 'users', access: 'admin',
      summary: 'List users', query: paginationQuery, response: listOf(userRead),
      async handler(_ctx, { query }) {
        const page = await s.users.list({}, query, 'email');
        return { ...page, items: page.items.map(toUser) };
      },
    }),

    route<unknown, { limit: number; offset: number; withinDays: number }>({
      method: 'GET', path: '/api/users/recently-active', operationId: 'listRecentlyActiveUsers', tag: 'users', access: 'admin',
      summary: 'Users active in the last withinDays days (default 7): last sign-in or API token use, most recent first',
      query: { ...paginationQuery, withinDays: int(1, 365, { default: 7 }) },
      response: listOf(object({ ...userRead.properties as Record<string, Schema>, lastActiveAt: timestamp })),
      async handler(_ctx, { query }) {
        const since = new Date(Date.now() - query.withinDays * 86_400_000);
        const page = await s.users.recentlyActive(since, query);
        return { ...page, items: page.items.map((u) => ({ ...toUser(u), lastActiveAt: u.lastActiveAt })) };
      },
    }),

    route<{ email: string; password: string; name?: string; role: UserRow['role'] }>({
      method: 'POST', path: '/api/users', operationId: 'createUser', tag: 'users', access: 'admin',
      summary: 'Create a user with a role',
      body: object({ ...userSchema }, ['email', 'password', 'role']),
      status: 201, response: userRead,
      async handler(_ctx, { body }) {
        const user = await s.users.insert({
          email: body.email, name: body.name ?? null, role: body.role, passwordHash: await hashPassword(body.password, s.config.passwordHashCost),
        });
        return toUser(user);
      },
    }),

    route<{ name?: string | null; role?: UserRow['role']; email?: string }>({
      method: 'PATCH', path: '/api/users/{id}', operationId: 'updateUser', tag: 'users', access: 'admin',
      summary: 'Update a user: an unrestricted admin changes anyone; a user may change their own name',
      self: { param: 'id', fields: ['name'] },
      body: object({ name: userSchema.name, role: userSchema.role, email: userSchema.email }, [], { minProperties: 1 }),
      readOnly: ['id', 'createdAt', 'updatedAt', 'lastLoginAt'],
      response: userRead,
      async handler(ctx, { params, body }) {
        const user = await loadUser(s, params.id);
        const roleChanged = body.role !== undefined && body.role !== user.role;
        if (roleChanged && body.role !== 'admin') await assertNotLastAdmin(s, user);
        const updated = await s.transaction(async (trx) => {
          const row = await s.users.update(user.id, body, trx);
          if (roleChanged) await s.users.bumpTokenVersion(user.id, trx);
          return row!;
        });
        if (roleChanged) clearAuthCache();
        ctx.state.audit = { details: { fields: Object.keys(body), ...(roleChanged && { role: { from: user.role, to: body.role } }) } };
        return toUser(updated);
      },
    }),

    route<{ currentPassword?: string; newPassword: string }>({
      method: 'POST', path: '/api/users/{id}/password', operationId: 'changePassword', tag: 'users', access: 'admin',
      summary: 'Change a password (an unrestricted admin, or the user with their current password); ends existing sessions',
      self: { param: 'id' },
      body: object({ currentPassword: str({ maxLength: 1024 }), newPassword: userSchema.password }, ['newPassword']),
      status: 204, errors: [401],
      async handler(ctx, { params, body }) {
        const self = isSelf(ctx, params.id);
        const user = await loadUser(s, params.id);
        // Anyone changing their own password proves they know the current one, admins included:
        // a stolen session must not be enough to lock the owner out.
        if (self) {
          if (!body.currentPassword) throw validationError('currentPassword is required', 'currentPassword');
          if (!(await verifyPassword(body.currentPassword, user.passwordHash))) throw unauthorized('The current password is wrong');
        }
        await s.users.setPassword(user, await hashPassword(body.newPassword, s.config.passwordHashCost));
        clearAuthCache();
        ctx.state.audit = { details: { fields: ['password'] } };
        return undefined;
      },
    }),

    route({
      method: 'DELETE', path: '/api/users/{id}', operationId: 'deleteUser', tag: 'users', access: 'admin',
      summary: 'Delete a user (not yourself); their API tokens go with them', status: 204,
      load: (_ctx, p) => loadUser(s, p.id),
      async handler(ctx, { resource }) {
        if (isSelf(ctx, resource.id)) throw conflict('You cannot delete yourself', 'Ask another admin');
        await assertNotLastAdmin(s, resource);
        await s.users.delete(resource.id);
        clearAuthCache();
        ctx.state.audit = { details: { email: resource.email } };
        return undefined;
      },
    }),
  ];
}
