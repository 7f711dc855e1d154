import type Koa from 'koa';
import type { AppError } from '../../controller/errors/app-error.js';

export type Role = 'viewer' | 'operator' | 'admin';
export type Scope = '*:read' | 'services:write' | 'admin:*' | 'tokens:manage';
export const ROLE_RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** Who is calling, after the bearer token was checked. */
export interface Actor {
  type: 'user' | 'service_account';
  id: string;
  name: string;
  /** The effective role: min(owner's role, the token's role cap). */
  role: Role;
  tokenType: 'jwt' | 'api_token';
  tokenId: string | null;
  /** null: every environment; otherwise the only environments this token may touch. */
  environmentIds: string[] | null;
}

export interface AuditNote {
  action?: string;
  resourceType?: string;
  resourceId?: string | null;
  environmentId?: string | null;
  details?: Record<string, unknown>;
  skip?: boolean;
}

export interface AppState {
  requestId: string;
  actor?: Actor;
  /** Set when a bearer token was sent but is not valid; thrown only on protected routes. */
  authError?: AppError;
  /** Filled by handlers that want to say more in the audit entry than the route's default. */
  audit?: AuditNote;
  /** Real client address (X-Forwarded-For is not trusted). */
  clientIp: string;
}

export interface AppRequest extends Koa.Request {
  body?: unknown;
  rawBody?: Buffer;
}

export type Ctx = Koa.ParameterizedContext<AppState> & { request: AppRequest; params: Record<string, string> };
