import type { Knex } from 'knex';
import { BaseRepository } from './base-repository.js';
import type { Role } from '../../auth/actor.js';

export interface ApiTokenRow {
  id: string;
  name: string;
  tokenHash: string;
  tokenPrefix: string;
  ownerUserId: string | null;
  ownerServiceAccountId: string | null;
  role: Role | null;
  environmentIds: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
}

/** A token row joined with its owner, as authentication needs it. */
export interface TokenWithOwner extends ApiTokenRow {
  ownerName: string;
  ownerRole: Role;
  ownerDisabled: boolean;
  /** The owning user's roles by environment id (null for a service account or no membership). */
  ownerEnvironmentRoles: Record<string, Role> | null;
}

export class ApiTokensRepository extends BaseRepository<ApiTokenRow> {
  constructor(db: Knex) {
    super(db, 'api_tokens');
  }

  async findByHashWithOwner(hash: string): Promise<TokenWithOwner | undefined> {
    const row = await this.db('api_tokens as t')
      .leftJoin('users as u', 'u.id', 't.owner_user_id')
      .leftJoin('service_accounts as s', 's.id', 't.owner_service_account_id')
      .where('t.token_hash', hash)
      .first(
        't.*',
        this.db.raw('coalesce(u.email, s.name) as owner_name'),
        this.db.raw('coalesce(u.role, s.role) as owner_role'),
        this.db.raw('coalesce(s.disabled, false) as owner_disabled'),
        this.db.raw('(select json_object_agg(m.environment_id, m.role) from environment_members m where m.user_id = t.owner_user_id) as owner_environment_roles'),
      );
    return row as TokenWithOwner | undefined;
  }

  async revoke(id: string): Promise<ApiTokenRow> {
    const [row] = await this.q().where('id', id).update({ revokedAt: this.db.fn.now() } as never).returning('*');
    return row as ApiTokenRow;
  }

  async touch(id: string): Promise<void> {
    await this.q().where('id', id).update({ lastUsedAt: this.db.fn.now() } as never);
  }
}

export function toApiToken(t: ApiTokenRow) {
  return {
    id: t.id, name: t.name, tokenPrefix: t.tokenPrefix,
    ownerUserId: t.ownerUserId, ownerServiceAccountId: t.ownerServiceAccountId,
    role: t.role, environmentIds: t.environmentIds, expiresAt: t.expiresAt, revokedAt: t.revokedAt,
    lastUsedAt: t.lastUsedAt, createdAt: t.createdAt,
  };
}
