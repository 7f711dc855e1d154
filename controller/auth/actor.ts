/** Roles, scopes and the caller: what the controller knows of who asks, with no HTTP in it. */
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
  /**
   * The user's roles in the environments they are a member of, by environment id. There the
   * lower of this and `role` applies (the global role is the ceiling); elsewhere `role` does.
   */
  environmentRoles: Record<string, Role>;
}
