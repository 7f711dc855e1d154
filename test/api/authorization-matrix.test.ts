import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { apiToken, bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import { allRoutes } from '../../api/routes/index.js';
import type { RouteSpec } from '../../api/http/route.js';
import { concretePath } from '../support/route-paths.js';
import { checkedFetch } from '../support/openapi-check.js';

type Caller = 'none' | 'viewer' | 'operator' | 'admin' | 'envLimited' | 'roleCapped';
type Outcome = 'UNAUTHORIZED' | 'FORBIDDEN_SCOPE' | 'FORBIDDEN_ROLE' | 'allowed' | 'allowedOrRole';

// Written out from DECISIONS.md (Authentication), not imported from the code under test.
const SCOPES: Record<'viewer' | 'operator' | 'admin', string[]> = {
  viewer: ['*:read'],
  operator: ['*:read', 'services:write'],
  admin: ['*:read', 'services:write', 'admin:*', 'tokens:manage'],
};
const RANK = { viewer: 1, operator: 2, admin: 3 };
const ROLE_SCOPE = { viewer: '*:read', operator: 'services:write', admin: 'admin:*' };

/** The expected outcome of one route for one caller, from the route's access, scope and envExempt. */
function expected(spec: RouteSpec, caller: Caller): Outcome {
  // Signed incoming webhooks take no bearer token; with no secret configured (as here) they are
  // disabled and answer 401 to everyone (fail closed).
  if (spec.path.startsWith('/api/webhooks/')) return 'UNAUTHORIZED';
  // Agent routes take an agent token only: a user's JWT or API token is refused like no token.
  if (spec.path.startsWith('/api/agent/')) return 'UNAUTHORIZED';
  if (spec.access === 'public') return 'allowed';
  if (caller === 'none') return 'UNAUTHORIZED';
  if (caller === 'envLimited' && !spec.envExempt && !spec.path.includes('{envId}')) return 'FORBIDDEN_SCOPE';
  const role = caller === 'envLimited' ? 'admin' : caller === 'roleCapped' ? 'viewer' : caller;
  // "Any valid token" routes may still refuse in the handler (e.g. a user editing someone else).
  if (spec.access === 'authenticated') return role === 'admin' ? 'allowed' : 'allowedOrRole';
  const needed = spec.scope ?? ROLE_SCOPE[spec.access];
  return RANK[role] >= RANK[spec.access] && SCOPES[role].includes(needed) ? 'allowed' : 'FORBIDDEN_ROLE';
}

/** A stream route (SSE) never ends: read its status and, for an error, its body; then hang up. */
async function openThenClose(client: HttpClient, path: string) {
  const ac = new AbortController();
  const res = await checkedFetch(client.baseUrl + path, { headers: client.token ? { authorization: `Bearer ${client.token}` } : {}, signal: ac.signal });
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    ac.abort();
    return { status: res.status, body: null as any, text: '' };
  }
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

describe('authorization matrix: every registered route against every kind of caller', () => {
  let svc: TestService;
  let envId: string;
  let callers: Record<Exclude<Caller, 'none'>, HttpClient>;
  let specs: RouteSpec[];

  before(async () => {
    svc = await startTestService();
    const admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    const me = (await admin.get('/api/auth/me')).body;
    callers = {
      admin,
      viewer: (await userWithRole(admin, 'viewer')).client,
      operator: (await userWithRole(admin, 'operator')).client,
      envLimited: await apiToken(admin, me.id, { environmentIds: [envId] }),
      roleCapped: await apiToken(admin, me.id, { role: 'viewer' }),
    };
    specs = allRoutes(svc.services);
  });
  after(() => svc.stop());

  it('covers a sizeable route table', () => {
    expect(specs.length).to.be.greaterThan(30);
  });

  it('answers each route with the status class its access rules give, for each caller', async function () {
    this.timeout(120_000);
    const failures: string[] = [];
    const order: Caller[] = ['none', 'viewer', 'operator', 'roleCapped', 'envLimited', 'admin'];
    for (const spec of specs) {
      const path = concretePath(spec, envId);
      const statuses: number[] = [];
      for (const caller of order) {
        const client = caller === 'none' ? svc.http : callers[caller];
        const res = spec.raw && spec.method === 'GET' ? await openThenClose(client, path) : await client.request(spec.method, path);
        statuses.push(res.status);
        const want = expected(spec, caller);
        const code = res.body?.code;
        const ok = want === 'allowed' ? res.status !== 401 && res.status !== 403
          : want === 'allowedOrRole' ? res.status !== 401 && code !== 'FORBIDDEN_SCOPE'
            : want === 'UNAUTHORIZED' ? res.status === 401 && code === 'UNAUTHORIZED'
              : res.status === 403 && code === want;
        if (!ok) failures.push(`${spec.method} ${spec.path} as ${caller}: expected ${want}, got ${res.status} ${code ?? ''}`);
        if (res.status >= 500) failures.push(`${spec.method} ${spec.path} as ${caller}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      // A public route does not care who calls: every caller gets the same answer.
      if (spec.access === 'public' && new Set(statuses).size !== 1) {
        failures.push(`${spec.method} ${spec.path} is public but answered ${statuses.join(',')} by caller`);
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
