import { expect } from 'chai';
import type { HttpClient } from './http-client.js';
import type { Role } from '../../api/http/types.js';
// static: the service's module graph (15-20 s to load on a loaded machine) loads with the test
// files, not inside the first hook that starts a service, under its 20 s timeout
import { startTestService, type TestService } from './test-service.js';

export const PASSWORD = 'correct-horse-battery';

/** Registers the first user (admin) and returns a client carrying its JWT. */
export async function bootstrapAdmin(http: HttpClient, email = 'admin@example.test'): Promise<HttpClient> {
  const reg = await http.post('/api/auth/register', { email, password: PASSWORD, name: 'Admin' });
  expect(reg.status, reg.text).to.equal(201);
  return login(http, email);
}

export async function login(http: HttpClient, email: string, password = PASSWORD): Promise<HttpClient> {
  const res = await http.post('/api/auth/login', { email, password });
  expect(res.status, res.text).to.equal(200);
  return http.withToken(res.body.token);
}

/** Creates a user with the role (as admin) and returns a client logged in as them. */
export async function userWithRole(admin: HttpClient, role: Role, email = `${role}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.test`) {
  const res = await admin.post('/api/users', { email, password: PASSWORD, name: role, role });
  expect(res.status, res.text).to.equal(201);
  return { client: await login(admin.withToken(null), email), user: res.body };
}

export async function createEnvironment(admin: HttpClient, name = `env-${Math.random().toString(36).slice(2, 9)}`) {
  const res = await admin.post('/api/environments', { name });
  expect(res.status, res.text).to.equal(201);
  return res.body as { id: string; name: string };
}

/** An API token for the admin user, optionally role-capped and environment-limited. */
export async function apiToken(admin: HttpClient, ownerUserId: string, opts: { role?: Role; environmentIds?: string[] } = {}) {
  const res = await admin.post('/api/admin/tokens', { name: `t-${Math.random().toString(36).slice(2, 7)}`, ownerUserId, ...opts });
  expect(res.status, res.text).to.equal(201);
  return admin.withToken(res.body.token);
}

export interface RoleWorld {
  svc: TestService;
  admin: HttpClient;
  operator: HttpClient;
  viewer: HttpClient;
  env: { id: string; name: string };
  envId: string;
}

/** The usual API-test start: a fresh service, an admin, an operator, a viewer and one environment. */
export async function startWithRoles(config: Record<string, string> = {}): Promise<RoleWorld> {
  const svc = await startTestService(config);
  const admin = await bootstrapAdmin(svc.http);
  const operator = (await userWithRole(admin, 'operator')).client;
  const viewer = (await userWithRole(admin, 'viewer')).client;
  const env = await createEnvironment(admin);
  return { svc, admin, operator, viewer, env, envId: env.id };
}
