import type { Knex } from 'knex';
import { BaseRepository, isUuid, type Page, type PageQuery } from './base-repository.js';
import type { Role } from '../../auth/actor.js';

export interface ServiceAccountRow {
  id: string;
  name: string;
  description: string | null;
  role: Role;
  disabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** Active (not revoked) tokens; present on reads through this repository. */
  tokenCount: number;
}

export class ServiceAccountsRepository extends BaseRepository<ServiceAccountRow> {
  constructor(db: Knex) {
    super(db, 'service_accounts', { service_accounts_name_unique: 'A service account with this name already exists' });
  }

  private withCount(trx?: Knex.Transaction) {
    const tokens = this.db('api_tokens').count('*')
      .whereRaw('api_tokens.owner_service_account_id = service_accounts.id').whereNull('revokedAt');
    return (trx ?? this.db)('service_accounts').select('service_accounts.*', tokens.as('tokenCount'));
  }

  override async findById(id: string, trx?: Knex.Transaction): Promise<ServiceAccountRow | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.withCount(trx).where('service_accounts.id', id).first()) as ServiceAccountRow | undefined;
  }

  override async list(_where: Partial<ServiceAccountRow>, page: PageQuery): Promise<Page<ServiceAccountRow>> {
    const [rows, [{ count }]] = await Promise.all([
      this.withCount().orderBy('name').limit(page.limit).offset(page.offset),
      this.db('service_accounts').count({ count: '*' }),
    ]);
    return { items: rows as ServiceAccountRow[], total: Number(count), limit: page.limit, offset: page.offset };
  }
}

export function toServiceAccount(a: ServiceAccountRow) {
  return {
    id: a.id, name: a.name, description: a.description, role: a.role, disabled: a.disabled,
    tokenCount: Number(a.tokenCount ?? 0), createdAt: a.createdAt, updatedAt: a.updatedAt,
  };
}
