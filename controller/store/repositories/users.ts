import type { Knex } from 'knex';
import { BaseRepository, type Page, type PageQuery } from './base-repository.js';
import type { Role } from '../../auth/actor.js';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  passwordHash: string;
  /** Who made the user: `sso` (single sign-on, follows the provider's role claim) or `local`. */
  origin: 'local' | 'sso';
  tokenVersion: number;
  failedLoginCount: number;
  lastFailedLoginAt: Date | null;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export class UsersRepository extends BaseRepository<UserRow> {
  constructor(db: Knex) {
    super(db, 'users', { users_email_unique: 'A user with this email already exists' });
  }

  findByEmail(email: string, trx?: Knex.Transaction): Promise<UserRow | undefined> {
    return this.q(trx).whereRaw('lower(email) = lower(?)', [email]).first() as Promise<UserRow | undefined>;
  }

  async count(trx?: Knex.Transaction): Promise<number> {
    const [{ count }] = await this.q(trx).count({ count: '*' });
    return Number(count);
  }

  /** Makes every JWT issued so far stop working (password or role change). */
  async bumpTokenVersion(id: string, trx?: Knex.Transaction): Promise<void> {
    await this.q(trx).where('id', id).increment('tokenVersion', 1);
  }

  /** Holds every other writer of users off until `trx` ends: the first-admin check must not race. */
  async lockTable(trx: Knex.Transaction): Promise<void> {
    await trx.raw('LOCK TABLE users IN EXCLUSIVE MODE');
  }

  async adminCount(): Promise<number> {
    const [{ count }] = await this.q().where('role', 'admin').count({ count: '*' });
    return Number(count);
  }

  async recordFailedLogin(id: string, failedLoginCount: number): Promise<void> {
    await this.q().where('id', id).update({ failedLoginCount, lastFailedLoginAt: this.db.fn.now() } as never);
  }

  async recordLogin(id: string): Promise<void> {
    await this.q().where('id', id).update({ failedLoginCount: 0, lastLoginAt: this.db.fn.now() } as never);
  }

  /**
   * Users active since `since`, most recent first: their last sign-in or the last use of one
   * of their API tokens, whichever is later (`lastActiveAt`).
   */
  async recentlyActive(since: Date, page: PageQuery): Promise<Page<UserRow & { lastActiveAt: Date }>> {
    const activity = this.db.raw(`greatest(u.last_login_at, t.last_used_at)`);
    const base = () => this.db('users as u')
      .leftJoin(this.db('api_tokens').select('owner_user_id').max({ last_used_at: 'last_used_at' }).whereNotNull('owner_user_id')
        .groupBy('owner_user_id').as('t'), 't.owner_user_id', 'u.id')
      .where(activity, '>=', since);
    const [rows, [{ count }]] = await Promise.all([
      base().select('u.*', this.db.raw('greatest(u.last_login_at, t.last_used_at) as last_active_at'))
        .orderBy([{ column: 'last_active_at', order: 'desc' }, { column: 'u.id' }]).limit(page.limit).offset(page.offset),
      base().count({ count: '*' }),
    ]);
    return { items: rows as Array<UserRow & { lastActiveAt: Date }>, total: Number(count), limit: page.limit, offset: page.offset };
  }

  /** A new password also ends every session (tokenVersion) and the failed-login count. */
  async setPassword(user: UserRow, passwordHash: string): Promise<void> {
    await this.q().where('id', user.id)
      .update({ passwordHash, tokenVersion: user.tokenVersion + 1, failedLoginCount: 0, updatedAt: this.db.fn.now() } as never);
  }
}

/** What the API shows of a user: never the hash or login counters. */
export function toUser(u: UserRow) {
  return {
    id: u.id, email: u.email, name: u.name, role: u.role,
    lastLoginAt: u.lastLoginAt, createdAt: u.createdAt, updatedAt: u.updatedAt,
  };
}
