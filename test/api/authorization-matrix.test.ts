import crypto from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, login, userWithRole } from '../support/fixtures.js';
import { createService, insertServer } from '../support/catalog-fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { checkedFetch } from '../support/openapi-check.js';
import { connectMcp } from '../support/mcp-client.js';
import { openStream } from '../support/sse-stream.js';
import { rowCounts } from '../support/row-counts.js';
import { until } from '../support/until.js';

/**
 * The authorization matrix (issue 34): every operation of the OpenAPI document × every kind of
 * caller, through HTTP, MCP and SSE, with 0 escalations. What each operation needs comes from the
 * contract (interface-spec.md's declared roles, Authentication rules 3-5, DECISIONS.md Wave 4),
 * written out below; the document is first checked never to declare less than that, then every
 * caller's answer is held against what the document declares (x-access, x-acts-in).
 *
 * E is the environment every path names; F another one.
 * - viewer, operator: global roles, members nowhere;
 * - envAdmin: a global admin who is admin of E and viewer of F (an environment admin of E);
 * - loweredAdmin: a global admin made viewer of E;
 * - envLimited: the unrestricted admin's API token limited to E;
 * - roleCapped: the unrestricted admin's API token capped at viewer;
 * - serviceAccount: a service account with the operator role, through its token;
 * - admin: the unrestricted admin, who may do everything.
 */
type Caller = 'none' | 'viewer' | 'operator' | 'envAdmin' | 'loweredAdmin' | 'envLimited' | 'roleCapped' | 'serviceAccount' | 'admin';
const CALLERS: Caller[] = ['none', 'viewer', 'operator', 'envAdmin', 'loweredAdmin', 'envLimited', 'roleCapped', 'serviceAccount', 'admin'];
type Need = 'public' | 'authenticated' | 'viewer' | 'operator' | 'admin' | 'unrestricted';
const RANK: Record<Need, number> = { public: 0, authenticated: 1, viewer: 2, operator: 3, admin: 4, unrestricted: 5 };
type Role = 'viewer' | 'operator' | 'admin';
const ROLE_RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/**
 * What the contract says each operation needs, as [pattern over "METHOD /path", need]. Lower
 * needs (public, any token) replace the default; higher ones raise it; the highest match wins.
 * Default (Authentication rule 3): reads need *:read (viewer), writes services:write (operator).
 */
const CONTRACT: Array<[RegExp, Need]> = [
  // no bearer token: sign-in, first user, health, the document itself; signed webhooks; agent-token routes
  [/^POST \/api\/auth\/(login|register)$|^GET \/api\/auth\/(setup|oidc\/login|oidc\/callback)$|^GET \/health$|^GET \/api\/openapi\.json$/, 'public'],
  [/^POST \/api\/webhooks\/|^(GET|POST) \/api\/agent\//, 'public'],
  // the ACME HTTP-01 answer: the CA sends no token
  [/^GET \/\.well-known\/acme-challenge\//, 'public'],
  // any valid token: who am I, the audit log, the caller's own notifications
  [/^GET \/api\/auth\/me$|^GET \/api\/audit-logs$/, 'authenticated'],
  [/^(POST|PUT) \/api\/notifications\//, 'authenticated'],
  // Users and admin configuration; settings; operations known by title marked admin
  [/^(GET|POST) \/api\/users(\/recently-active)?$|^(PATCH|DELETE) \/api\/users\/\{id\}$/, 'admin'],
  [/^\w+ \/api\/admin\//, 'admin'],
  [/^\w+ \/api\/environments\/\{envId\}\/settings\//, 'admin'],
  [/^\w+ \/api\/settings\/storage-space/, 'admin'],
  [/^(POST|PUT|PATCH|DELETE) \/api\/settings\/(service|database)-types/, 'admin'],
  [/^DELETE \/api\/(environments|servers)\/\{id\}$|^\w+ \/api\/environments\/\{envId\}\/ssh-key/, 'admin'],
  [/^POST \/api\/secrets\/\{id\}\/reveal$|^\w+ \/api\/registries\/\{id\}\/(test|repositories|tags|services|check-updates)$/, 'admin'],
  // DECISIONS.md Wave 4: users, roles, others' tokens and passwords, service accounts, system settings and register-host
  [/^POST \/api\/users$|^(PATCH|DELETE) \/api\/users\/\{id\}$|^POST \/api\/users\/\{id\}\/password$/, 'unrestricted'],
  [/^(PUT|DELETE) \/api\/environments\/\{envId\}\/members\/\{userId\}$/, 'unrestricted'],
  [/^\w+ \/api\/admin\/service-accounts/, 'unrestricted'],
  [/^(POST|PUT|PATCH|DELETE) \/api\/settings\/system/, 'unrestricted'],
  [/^POST \/api\/environments\/\{envId\}\/servers\/register-host$/, 'unrestricted'],
];
/** Others' tokens need an unrestricted admin; one's own, the admin role where the token reaches. */
const OTHERS_TOKENS = /^\w+ \/api\/admin\/tokens/;

function contractNeed(method: string, path: string): Need {
  const key = `${method} ${path}`;
  const matched = CONTRACT.filter(([re]) => re.test(key)).map(([, need]) => need);
  const lower = matched.filter((n) => n === 'public' || n === 'authenticated');
  const base: Need = lower.length ? lower[0] : method === 'GET' ? 'viewer' : 'operator';
  return [base, ...matched.filter((n) => RANK[n] > RANK.authenticated)].reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
}

interface Operation {
  method: string; path: string; operationId: string; access: string; actsIn?: string;
  envAnswered: boolean; self?: string; identity: boolean; public: boolean; stream: boolean;
}

const roleOfAccess = (access: string): Role | 'authenticated' | 'public' =>
  access === '*:read' ? 'viewer' : access === 'services:write' ? 'operator' : access === 'admin:*' || access === 'tokens:manage' ? 'admin' : access as Role;

/** What the document declares, as a contract need: for comparison with the contract's. */
function declaredNeed(op: Operation): Need {
  if (op.public) return 'public';
  const role = roleOfAccess(op.access);
  if (role === 'authenticated') return 'authenticated';
  if (role === 'admin' && (op.actsIn === 'installation' || op.identity)) return 'unrestricted';
  return role;
}

/** Each caller's role in E, and the lowest they hold anywhere (what acting on the installation needs). */
const RIGHTS: Record<Exclude<Caller, 'none'>, { own: Role; inE: Role; everywhere: Role; limited: boolean }> = {
  viewer: { own: 'viewer', inE: 'viewer', everywhere: 'viewer', limited: false },
  operator: { own: 'operator', inE: 'operator', everywhere: 'operator', limited: false },
  envAdmin: { own: 'admin', inE: 'admin', everywhere: 'viewer', limited: false },
  loweredAdmin: { own: 'admin', inE: 'viewer', everywhere: 'viewer', limited: false },
  envLimited: { own: 'admin', inE: 'admin', everywhere: 'admin', limited: true },
  roleCapped: { own: 'viewer', inE: 'viewer', everywhere: 'viewer', limited: false },
  serviceAccount: { own: 'operator', inE: 'operator', everywhere: 'operator', limited: false },
  admin: { own: 'admin', inE: 'admin', everywhere: 'admin', limited: false },
};

type Outcome = 'UNAUTHORIZED' | 'FORBIDDEN_SCOPE' | 'FORBIDDEN_ROLE' | 'allowed' | 'notRefusedBeforeLoad';

/**
 * The answer the document's declarations give this caller on this operation, with E in the path
 * and random ids elsewhere. Where the decision needs the resource or the body (x-acts-in resource
 * or request) only the caller's own role is decided before; the resource pass below does the rest.
 */
function expected(op: Operation, caller: Caller): Outcome {
  // signed webhooks with no secret configured (as here) and agent routes answer 401 to any bearer token
  if (/^\/api\/(webhooks|agent)\//.test(op.path)) return 'UNAUTHORIZED';
  if (op.public) return 'allowed';
  if (caller === 'none') return 'UNAUTHORIZED';
  const r = RIGHTS[caller];
  const role = roleOfAccess(op.access);
  if (r.limited && !op.envAnswered && !op.path.includes('{envId}')) return 'FORBIDDEN_SCOPE';
  if (role === 'authenticated') return 'notRefusedBeforeLoad';
  const needed: Role = role as Role;
  if (ROLE_RANK[r.own] < ROLE_RANK[needed]) return 'FORBIDDEN_ROLE';
  if (needed === 'viewer') return 'allowed';
  if (op.actsIn === 'installation') {
    if (r.limited) return 'FORBIDDEN_SCOPE';
    return ROLE_RANK[r.everywhere] >= ROLE_RANK[needed] ? 'allowed' : 'FORBIDDEN_ROLE';
  }
  if (op.actsIn === 'environment') {
    // an environment's delete names a random one (not E, which the admin would delete): the caller is no member there
    const there = deletesEnvironment(op) ? r.own : r.inE;
    return ROLE_RANK[there] >= ROLE_RANK[needed] ? 'allowed' : 'FORBIDDEN_ROLE';
  }
  return 'notRefusedBeforeLoad';
}

const deletesEnvironment = (op: Pick<Operation, 'method' | 'path'>) => op.method === 'DELETE' && op.path === '/api/environments/{id}';

const refused = (o: Outcome) => o === 'UNAUTHORIZED' || o === 'FORBIDDEN_SCOPE' || o === 'FORBIDDEN_ROLE';

describe('authorization matrix: every operation of the OpenAPI document × every kind of caller', () => {
  let svc: TestService;
  let envE: string;
  let envF: string;
  let clients: Record<Caller, HttpClient>;
  let ops: Operation[];

  before(async function () {
    this.timeout(90_000);
    svc = await startTestService({ MCP_ENABLED: 'true' });
    const admin = await bootstrapAdmin(svc.http);
    envE = (await createEnvironment(admin, 'env-e')).id;
    envF = (await createEnvironment(admin, 'env-f')).id;
    const me = (await admin.get('/api/auth/me')).body;
    const envAdmin = await userWithRole(admin, 'admin', 'env-admin@example.test');
    await admin.put(`/api/environments/${envE}/members/${envAdmin.user.id}`, { role: 'admin' });
    await admin.put(`/api/environments/${envF}/members/${envAdmin.user.id}`, { role: 'viewer' });
    const lowered = await userWithRole(admin, 'admin', 'lowered-admin@example.test');
    await admin.put(`/api/environments/${envE}/members/${lowered.user.id}`, { role: 'viewer' });
    const account = (await admin.post('/api/admin/service-accounts', { name: 'ci-operator', role: 'operator' })).body;
    const accountToken = (await admin.post('/api/admin/tokens', { name: 'ci', ownerServiceAccountId: account.id })).body.token;
    clients = {
      none: svc.http,
      admin,
      viewer: (await userWithRole(admin, 'viewer')).client,
      operator: (await userWithRole(admin, 'operator')).client,
      envAdmin: await login(svc.http, 'env-admin@example.test'),
      loweredAdmin: await login(svc.http, 'lowered-admin@example.test'),
      envLimited: await apiToken(admin, me.id, { environmentIds: [envE] }),
      roleCapped: await apiToken(admin, me.id, { role: 'viewer' }),
      serviceAccount: svc.http.withToken(accountToken),
    };
    const doc = (await svc.http.get('/api/openapi.json')).body;
    ops = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        ops.push({
          method: method.toUpperCase(), path, operationId: op.operationId, access: op['x-access'], actsIn: op['x-acts-in'],
          envAnswered: op['x-environment-limited'] === 'answered', self: op['x-self'], identity: !!op['x-identity'],
          public: Array.isArray(op.security) && op.security.length === 0,
          stream: !!op.responses?.['200']?.content?.['text/event-stream'],
        });
      }
    }
  });
  after(() => svc?.stop());

  it('reads a sizeable document', () => {
    expect(ops.length).to.be.greaterThan(300);
  });

  it('the document never declares less than the contract asks', () => {
    const weaker: string[] = [];
    for (const op of ops) {
      const need = contractNeed(op.method, op.path);
      const declared = declaredNeed(op);
      // others' tokens: another owner than the caller needs an unrestricted admin (x-identity)
      if (OTHERS_TOKENS.test(`${op.method} ${op.path}`) && !op.identity && declared !== 'unrestricted') weaker.push(`${op.method} ${op.path}: no x-identity`);
      // a route a user may call for themselves is unrestricted for anyone else
      if (RANK[declared] < RANK[need]) weaker.push(`${op.method} ${op.path}: contract ${need}, document ${declared} (${op.access}, ${op.actsIn ?? '-'})`);
    }
    expect(weaker, weaker.join('\n')).to.deep.equal([]);
  });

  /** A stream route (SSE) never ends: read its status and, for an error, its body; then hang up. */
  async function call(client: HttpClient, op: Operation, path: string) {
    if (!op.stream) return client.request(op.method, path);
    const ac = new AbortController();
    const res = await checkedFetch(client.baseUrl + path, { headers: client.token ? { authorization: `Bearer ${client.token}` } : {}, signal: ac.signal });
    if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      ac.abort();
      return { status: res.status, body: null as any, text: '' };
    }
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text };
  }

  const concrete = (op: Operation, ids: Record<string, string> = {}) => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (name === 'envId' || (name === 'id' && op.path.startsWith('/api/environments/{id}') && !deletesEnvironment(op))) return envE;
    if (name === 'module') return 'general';
    return ids[name] ?? crypto.randomUUID();
  });

  it('HTTP and SSE: every caller gets what the document declares, and no refused caller gets through', async function () {
    this.timeout(240_000);
    const escalations: string[] = [];
    const mismatches: string[] = [];
    for (const op of ops) {
      const path = concrete(op);
      const answers = await Promise.all(CALLERS.map(async (caller) => ({ caller, res: await call(clients[caller], op, path) })));
      for (const { caller, res } of answers) {
        const want = expected(op, caller);
        const code = res.body?.code;
        const line = `${op.method} ${op.path} as ${caller}: expected ${want}, got ${res.status} ${code ?? ''}`;
        if (res.status >= 500) mismatches.push(`${line} ${res.text.slice(0, 160)}`);
        if (refused(want)) {
          if (res.status !== 401 && res.status !== 403) escalations.push(line);
          else if (code !== want) mismatches.push(line);
        } else if (want === 'allowed' ? res.status === 401 || res.status === 403 : res.status === 401 || code === 'FORBIDDEN_SCOPE') {
          mismatches.push(line);
        }
      }
      if (op.public && new Set(answers.map((a) => a.res.status)).size !== 1) {
        mismatches.push(`${op.method} ${op.path} is public but answered ${answers.map((a) => a.res.status).join(',')} by caller`);
      }
    }
    expect(escalations, `escalations:\n${escalations.join('\n')}`).to.deep.equal([]);
    expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
  });

  it('resources of E: a caller without the role there is refused on every operation that loads one, and nothing changes', async function () {
    this.timeout(120_000);
    const admin = clients.admin;
    const service = await createService(admin, envE, { name: 'web' });
    const server = (await insertServer(svc, envE, 'web-1')).id;
    const created = async (path: string, body: unknown) => {
      const res = await admin.post(path, body);
      expect(res.status, `${path} ${res.text}`).to.equal(201);
      return res.body.id as string;
    };
    const byKind: Record<string, string> = {
      services: service.id, servers: server,
      secrets: await created(`/api/environments/${envE}/secrets`, { key: 'DB_PASSWORD', value: 'never-shown' }),
      vars: await created(`/api/environments/${envE}/vars`, { key: 'PORT', value: '8080' }),
      'config-files': await created(`/api/environments/${envE}/config-files`, { name: 'app.conf', content: 'a=1\n' }),
      'config-fragments': await created(`/api/environments/${envE}/config-fragments`, { name: 'common', content: 'x=1\n' }),
      registries: await created(`/api/environments/${envE}/registries`, { name: 'reg', type: 'generic', registryUrl: 'https://r.example.test' }),
      'container-images': (await admin.get(`/api/services/${service.id}`)).body.containerImageId,
      'external-entities': await created(`/api/environments/${envE}/external-entities`, { name: 'stripe', type: 'saas' }),
      'server-clusters': await created(`/api/environments/${envE}/server-clusters`, { name: 'front', serverIds: [server] }),
      'deployment-plans': (await admin.post(`/api/environments/${envE}/deployment-plans`, { items: [{ serviceId: service.id, imageTag: 'v2' }] })).body.id,
    };
    const depId = await created(`/api/services/${service.id}/deployments`, { serverId: server, containerName: 'web-1' });
    const resourceOps = ops.filter((op) => op.actsIn === 'resource' && byKind[op.path.split('/')[2]] && !/\{(?!id\}|depId\})\w+\}/.test(op.path));
    const before = await rowCounts(svc.services.db);
    const escalations: string[] = [];
    let checked = 0;
    for (const op of resourceOps) {
      const needed = roleOfAccess(op.access) as Role;
      if (needed === 'viewer') continue;
      const path = concrete(op, { id: byKind[op.path.split('/')[2]], depId });
      for (const caller of ['viewer', 'loweredAdmin', 'roleCapped', 'envLimited'] as const) {
        const r = RIGHTS[caller];
        const refusedHere = r.limited || ROLE_RANK[r.inE] < ROLE_RANK[needed];
        if (!refusedHere) continue;
        const res = await call(clients[caller], op, path);
        checked++;
        if (res.status !== 403) escalations.push(`${op.method} ${op.path} as ${caller}: ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    expect(escalations, `escalations:\n${escalations.join('\n')}`).to.deep.equal([]);
    expect(checked).to.be.greaterThan(100);
    expect(await rowCounts(svc.services.db), 'nothing changed').to.deep.equal(before);
  });

  it('MCP: each caller is offered only tools it may call, and a refused call is refused as over HTTP', async function () {
    this.timeout(120_000);
    const inventory = (await clients.admin.get('/api/admin/mcp')).body.tools as Array<{ name: string; operationId: string | null }>;
    const opOfTool = new Map(inventory.filter((t) => t.operationId).map((t) => [t.name, ops.find((o) => o.operationId === t.operationId)!]));
    const escalations: string[] = [];
    let calls = 0;
    for (const caller of CALLERS.filter((c) => c !== 'none')) {
      const mcp = await connectMcp(svc.http.baseUrl, clients[caller].token);
      try {
        const tools = (await mcp.listTools()).tools;
        for (const tool of tools) {
          const op = opOfTool.get(tool.name);
          if (!op) continue;
          // offered: the caller holds the role somewhere it may act (MCP's registration asks the route's own check)
          const want = expected(op, caller);
          const offeredWrongly = want === 'UNAUTHORIZED' || want === 'FORBIDDEN_SCOPE'
            || (want === 'FORBIDDEN_ROLE' && !(op.actsIn === 'environment' && ROLE_RANK[RIGHTS[caller as Exclude<Caller, 'none'>].own] >= ROLE_RANK[roleOfAccess(op.access) as Role]));
          if (offeredWrongly) escalations.push(`${tool.name} offered to ${caller} (${op.method} ${op.path}: ${want})`);
          if (!refused(want)) continue;
          // call it with E and random ids, as the HTTP pass did: it must be refused the same way
          // (only tools whose required arguments are all path parameters: their input schema says which)
          const required = (tool.inputSchema.required ?? []) as string[];
          const described = (name: string) => String((tool.inputSchema.properties?.[name] as { description?: string } | undefined)?.description ?? '');
          if (!required.every((name) => /^\{\w+\} of /.test(described(name)))) continue;
          const args: Record<string, string> = {};
          for (const name of required) {
            const d = described(name);
            args[name] = /^\{envId\}|^\{id\} of \/api\/environments\/\{id\}/.test(d) ? envE : /^\{module\}/.test(d) ? 'general' : crypto.randomUUID();
          }
          const result = await mcp.callTool({ name: tool.name, arguments: args });
          calls++;
          if (!result.isError || !JSON.stringify(result.content).includes(want)) {
            escalations.push(`${tool.name} as ${caller}: ${JSON.stringify(result.content).slice(0, 160)}`);
          }
        }
      } finally {
        await mcp.close();
      }
    }
    expect(escalations, escalations.join('\n')).to.deep.equal([]);
    expect(calls, 'some offered tools are refused in E (lowered callers)').to.be.greaterThan(0);
  });

  it('SSE: the environment-limited token hears E only; the others hear every environment', async function () {
    this.timeout(30_000);
    const streams = (['envLimited', 'loweredAdmin', 'viewer', 'serviceAccount'] as const).map((c) => ({ c, s: openStream(`${svc.http.baseUrl}/api/events`, clients[c].token!) }));
    try {
      for (const { s } of streams) expect((await s.ready).status).to.equal(200);
      await svc.services.events.publish('drift.changed', envF, { marker: 'F' });
      await svc.services.events.publish('drift.changed', null, { marker: 'installation' });
      await svc.services.events.publish('drift.changed', envE, { marker: 'E' });
      for (const { c, s } of streams) {
        await until(`${c} to hear E`, () => s.frames.some((f) => f.data?.marker === 'E'));
        const heard = s.frames.map((f) => f.data?.marker).filter(Boolean);
        expect(heard, c).to.deep.equal(c === 'envLimited' ? ['E'] : ['F', 'installation', 'E']);
      }
    } finally {
      for (const { s } of streams) s.close();
    }
  });
});
