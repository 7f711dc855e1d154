import type { Knex } from 'knex';
import { translateDbError } from '../translate-error.js';
import type { UserRow } from './users.js';

export interface UserIdentityRow {
  issuer: string;
  subject: string;
  userId: string;
  createdAt: Date;
  lastLoginAt: Date | null;
}

/** Which user each identity of an OpenID provider (issuer + subject) signs in as (user_identities). */
export class UserIdentitiesRepository {
  constructor(private readonly db: Knex) {}

  /** The user this identity is bound to, if any. */
  async userOf(issuer: string, subject: string, trx?: Knex.Transaction): Promise<UserRow | undefined> {
    return (await (trx ?? this.db)('users as u').join('user_identities as i', 'i.user_id', 'u.id')
      .where({ 'i.issuer': issuer, 'i.subject': subject }).first('u.*')) as UserRow | undefined;
  }

  /** The identities bound to the user (at most one per issuer). */
  async ofUser(userId: string, trx?: Knex.Transaction): Promise<Array<{ issuer: string; subject: string }>> {
    return (await (trx ?? this.db)('user_identities').where({ userId }).select('issuer', 'subject').orderBy('issuer')) as Array<{ issuer: string; subject: string }>;
  }

  /** Binds the identity to the user; a second binding of either side is a conflict. */
  async bind(userId: string, issuer: string, subject: string, trx?: Knex.Transaction): Promise<void> {
    try {
      await (trx ?? this.db)('user_identities').insert({ userId, issuer, subject, lastLoginAt: this.db.fn.now() });
    } catch (e) {
      throw translateDbError(e, {
        user_identities_pkey: 'This account of the provider is already bound to a user',
        user_identities_user_issuer_unique: 'This user is already bound to another account of the provider',
      });
    }
  }

  async recordLogin(issuer: string, subject: string, trx?: Knex.Transaction): Promise<void> {
    await (trx ?? this.db)('user_identities').where({ issuer, subject }).update({ lastLoginAt: this.db.fn.now() });
  }
}
