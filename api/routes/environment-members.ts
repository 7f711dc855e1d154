import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { clearAuthCache } from '../../controller/auth/authenticate-token.js';
import { toEnvironmentMember } from '../../controller/store/repositories/environment-members.js';
import { route } from '../http/route.js';
import { arrayOf, enumOf, int, nullable, object, str, timestamp, uuid } from '../http/schema.js';
import { environmentOf } from './loaders.js';
import { loadUser } from './users.js';
import type { Role } from '../../controller/auth/actor.js';

const role = enumOf('viewer', 'operator', 'admin');
const memberRead = object({
  environmentId: uuid, userId: uuid, email: str(), name: nullable(str()), role, globalRole: role,
  createdAt: timestamp, updatedAt: timestamp,
});

/**
 * Per-environment roles (DECISIONS.md, Wave 3): a member's role in one environment. The user's
 * own (global) role stays the ceiling: an operator made admin of an environment is still an
 * operator there; a user who is no member of an environment keeps the global role in it.
 */
export default function environmentMemberRoutes(s: Services) {
  const env = environmentOf(s);
  return [
    route({
      method: 'GET', path: '/api/environments/{envId}/members', operationId: 'listEnvironmentMembers', tag: 'environments', access: 'admin',
      summary: 'The users with a role of their own in this environment', load: env,
      response: object({ items: arrayOf(memberRead), total: int(0) }),
      async handler(_ctx, { params }) {
        const items = (await s.environmentMembers.list(params.envId)).map(toEnvironmentMember);
        return { items, total: items.length };
      },
    }),

    route<{ role: Role }>({
      method: 'PUT', path: '/api/environments/{envId}/members/{userId}', operationId: 'putEnvironmentMember', tag: 'environments', access: 'admin',
      summary: "Set a user's role in this environment (the user's own role stays the ceiling)", load: env,
      // a role is part of an identity: an environment admin may not lower or raise anyone (policy.ts)
      actsIn: 'installation',
      description: 'Takes effect on the user\'s next request (tokens are not reissued). The effective role there is the lower of this and the user\'s own role.',
      body: object({ role }, ['role']), response: memberRead, errors: [404],
      async handler(ctx, { params, body }) {
        const target = await loadUser(s, params.userId);
        await s.environmentMembers.put(params.envId, target.id, body.role);
        clearAuthCache();
        ctx.state.audit = { resourceType: 'environment-member', resourceId: target.id, environmentId: params.envId, details: { email: target.email, role: body.role } };
        return toEnvironmentMember((await s.environmentMembers.find(params.envId, target.id))!);
      },
    }),

    route({
      method: 'DELETE', path: '/api/environments/{envId}/members/{userId}', operationId: 'deleteEnvironmentMember', tag: 'environments', access: 'admin',
      summary: 'Remove a user\'s role in this environment: their own role applies there again', load: env, status: 204, errors: [404],
      actsIn: 'installation',
      async handler(ctx, { params }) {
        const target = await loadUser(s, params.userId);
        if (!(await s.environmentMembers.remove(params.envId, target.id))) throw notFound('Environment member');
        clearAuthCache();
        ctx.state.audit = { resourceType: 'environment-member', resourceId: target.id, environmentId: params.envId, details: { email: target.email } };
        return undefined;
      },
    }),
  ];
}
