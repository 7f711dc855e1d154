import type { Knex } from 'knex';
import type { Role } from '../../auth/actor.js';

export interface EnvironmentMemberRow {
  environmentId: string;
  userId: string;
  role: Role;
  createdAt: Date;
  updatedAt: Date;
}

export type MemberWithUser = EnvironmentMemberRow & { email: string; name: string | null; globalRole: Role };

/** Who holds which role in an environment (environment_members). */
export class EnvironmentMembersRepository {
  constructor(private readonly db: Knex) {}

  /** The members of one environment with their e-mail and global role, by e-mail. */
  list(environmentId: string, userId?: string): Promise<MemberWithUser[]> {
    return this.db('environment_members as m').join('users as u', 'u.id', 'm.user_id')
      .where('m.environment_id', environmentId)
      .modify((q) => { if (userId) q.where('m.user_id', userId); })
      .select('m.*', 'u.email', 'u.name', 'u.role as global_role')
      .orderBy('u.email') as never;
  }

  /** Sets a user's role in an environment (adds the membership or changes its role). */
  async put(environmentId: string, userId: string, role: Role): Promise<EnvironmentMemberRow> {
    const [row] = await this.db('environment_members')
      .insert({ environmentId, userId, role })
      .onConflict(['environmentId', 'userId'])
      .merge({ role, updatedAt: this.db.fn.now() } as never)
      .returning('*');
    return row as EnvironmentMemberRow;
  }

  /** One membership with the user's e-mail and global role, or undefined. */
  async find(environmentId: string, userId: string) {
    return (await this.list(environmentId, userId))[0];
  }

  async remove(environmentId: string, userId: string): Promise<boolean> {
    return (await this.db('environment_members').where({ environmentId, userId }).delete()) > 0;
  }

  /** One user's roles by environment id (empty when they are a member nowhere). */
  async rolesOf(userId: string): Promise<Record<string, Role>> {
    const rows = await this.db('environment_members').where({ userId }).select('environmentId', 'role');
    return Object.fromEntries(rows.map((r: { environmentId: string; role: Role }) => [r.environmentId, r.role]));
  }
}

export const toEnvironmentMember = (m: MemberWithUser) => ({
  environmentId: m.environmentId, userId: m.userId, email: m.email, name: m.name, role: m.role, globalRole: m.globalRole,
  createdAt: m.createdAt, updatedAt: m.updatedAt,
});
