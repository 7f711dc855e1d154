import { expect } from 'chai';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, userWithRole } from '../support/fixtures.js';
import type { HttpClient, HttpResponse } from '../support/http-client.js';
import { allRoutes } from '../../api/routes/index.js';
import type { RouteSpec } from '../../api/http/route.js';
import type { Schema } from '../../api/http/schema.js';
import { concretePath } from '../support/route-paths.js';
import { rowCounts } from '../support/row-counts.js';

const HUGE = 'x'.repeat(200_000);
const OVER_LIMIT = 'y'.repeat(1_100_000);

/** A value of the wrong JSON type for the schema. */
function wrongTypeFor(schema: Schema): unknown[] {
  switch (schema.type) {
    case 'string': return [12345, true, { a: 1 }, ['x']];
    case 'integer': case 'number': return ['12', 1.5, true, { a: 1 }];
    case 'boolean': return ['true', 1, null];
    case 'array': return ['a', { a: 1 }, [{ nested: { deeper: true } }]];
    case 'object': return ['a', 7, ['x']];
    default: return [Symbol.for('skip')];
  }
}

describe('fuzzing every route that takes a body', () => {
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;
  let ids: Record<string, string>;
  let bodyRoutes: RouteSpec[];

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    const viewer = await userWithRole(admin, 'viewer');
    const reg = await admin.post(`/api/environments/${envId}/registries`, { name: 'fuzz', type: 'generic', registryUrl: 'https://r.example.test' });
    const sa = await admin.post('/api/admin/service-accounts', { name: 'fuzz-sa', role: 'viewer' });
    const tok = await admin.post('/api/admin/tokens', { name: 'fuzz', ownerServiceAccountId: sa.body.id });
    // Item routes point at real rows where one exists, so body validation is reached, not a 404.
    ids = { users: viewer.user.id, registries: reg.body.id, 'service-accounts': sa.body.id, tokens: tok.body.id };
    bodyRoutes = allRoutes(svc.services).filter((s) => s.body);
  });
  after(() => svc.stop());

  function expectClientError(res: HttpResponse, what: string) {
    expect(res.status, `${what}: ${res.status} ${res.text.slice(0, 300)}`).to.be.within(400, 499);
    expect(res.body, what).to.be.an('object');
    expect(res.body.code, what).to.be.a('string');
    expect(res.body.message, what).to.be.a('string');
    expect(res.body.requestId, what).to.equal(res.headers.get('x-request-id'));
  }

  it('there are body routes to fuzz', () => {
    expect(bodyRoutes.length).to.be.greaterThan(10);
  });

  it('answers malformed, mistyped, oversized and unknown input with a 4xx envelope and changes nothing', async function () {
    this.timeout(180_000);
    const before = await rowCounts(svc.services.db);
    for (const spec of bodyRoutes) {
      const path = concretePath(spec, envId, ids);
      const send = (body: unknown, raw?: string, type?: string) => admin.request(spec.method, path, body,
        { ...(raw !== undefined && { raw }), ...(type && { headers: { 'content-type': type } }) });
      const label = (what: string) => `${spec.method} ${spec.path} ${what}`;

      for (const raw of ['{', '{"a":', 'nul', '[1,2', '"unterminated', '{"a":1}}']) {
        expectClientError(await send(undefined, raw), label(`malformed JSON ${raw}`));
      }
      expectClientError(await send(undefined, JSON.stringify({ s: OVER_LIMIT })), label('body over 1 MB'));
      expectClientError(await send(undefined, 'name=x&role=admin', 'application/x-www-form-urlencoded'), label('form body'));
      expectClientError(await send(undefined, 'plain text', 'text/plain'), label('text body'));
      for (const notObject of [[], 'str', 42, null]) {
        expectClientError(await send(notObject), label(`non-object ${JSON.stringify(notObject)}`));
      }
      expectClientError(await send({ definitelyNotAField: 1 }), label('unknown field'));

      const props = (spec.body!.properties ?? {}) as Record<string, Schema>;
      for (const [name, schema] of Object.entries(props)) {
        for (const value of wrongTypeFor(schema)) {
          if (value === Symbol.for('skip')) continue;
          expectClientError(await send({ [name]: value }), label(`${name}=${JSON.stringify(value)}`));
        }
        if (schema.type === 'string') {
          // Longer than the field allows: 200 kB, or past the field's own limit where that is larger
          // (config file content may legitimately be hundreds of kB).
          const huge = typeof schema.maxLength === 'number' && schema.maxLength >= HUGE.length ? 'x'.repeat(schema.maxLength + 1) : HUGE;
          expectClientError(await send({ [name]: huge }), label(`${name} huge string`));
          expectClientError(await send({ ...plausible(props), [name]: 'nul\u0000byte' }), label(`${name} with a NUL character`));
          // A huge string next to otherwise plausible values must still be refused.
          expectClientError(await send({ ...plausible(props), [name]: huge }), label(`${name} huge string in a plausible body`));
        }
      }
    }
    expect(await rowCounts(svc.services.db)).to.deep.equal(before);
  });
});

/** A body that could pass validation, so the size limit of the one huge field is what refuses it. */
function plausible(props: Record<string, Schema>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(props)) {
    if (s.enum) out[name] = (s.enum as unknown[])[0];
    else if (s.type === 'string') out[name] = s.format === 'email' ? 'a@example.test' : s.format === 'uri' ? 'https://x.example.test' : 'abc';
    else if (s.type === 'integer' || s.type === 'number') out[name] = s.minimum ?? 1;
    else if (s.type === 'boolean') out[name] = false;
  }
  return out;
}

/** Integers at and past the 32- and 64-bit limits, as JSON number text (exact, not rounded by JS). */
const BIG_INTEGERS = [
  '2147483647', '2147483648', '-2147483649', '4294967296',
  '9223372036854775807', '9223372036854775808', '-9223372036854775809', '18446744073709551616', '1e19',
];

describe('fuzzing every route with integers past 2^31 and 2^63', () => {
  let svc: TestService;
  let admin: HttpClient;
  let envId: string;
  let routes: RouteSpec[];

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    envId = (await createEnvironment(admin)).id;
    routes = allRoutes(svc.services).filter((s) => !s.raw);
  });
  after(() => svc.stop());

  function expectNoServerError(res: HttpResponse, what: string) {
    expect(res.status, `${what}: ${res.status} ${res.text.slice(0, 300)}`).to.be.below(500);
  }

  it('answers every huge integer in the path, the query and the body without a 5xx', async function () {
    this.timeout(300_000);
    let sent = 0;
    for (const spec of routes) {
      const label = (what: string) => `${spec.method} ${spec.path} ${what}`;
      const path = concretePath(spec, envId);
      // every path parameter in turn, the others left real
      for (const name of spec.path.match(/\{\w+\}/g) ?? []) {
        for (const n of BIG_INTEGERS) {
          const withNumber = concretePath({ ...spec, path: spec.path.replace(name, n) }, envId);
          expectNoServerError(await admin.request(spec.method, withNumber, spec.body ? {} : undefined), label(`${name}=${n}`));
          sent++;
        }
      }
      for (const [name, schema] of Object.entries(spec.query ?? {})) {
        if (schema.type !== 'integer' && schema.type !== 'number') continue;
        for (const n of BIG_INTEGERS) {
          expectNoServerError(await admin.request(spec.method, `${path}?${name}=${n}`, spec.body ? {} : undefined), label(`?${name}=${n}`));
          sent++;
        }
      }
      const props = (spec.body?.properties ?? {}) as Record<string, Schema>;
      for (const [name, schema] of Object.entries(props)) {
        if (schema.type !== 'integer' && schema.type !== 'number') continue;
        for (const n of BIG_INTEGERS) {
          expectNoServerError(await admin.request(spec.method, path, undefined, { raw: `{"${name}":${n}}` }), label(`${name}=${n}`));
          sent++;
        }
      }
    }
    expect(sent, 'requests sent').to.be.greaterThan(100);
  });
});
