import { expect } from 'chai';
import crypto from 'node:crypto';
import { startTestService, type TestService } from '../support/test-service.js';
import { bootstrapAdmin, createEnvironment, login, PASSWORD, userWithRole } from '../support/fixtures.js';
import type { HttpClient } from '../support/http-client.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { buildRouter } from '../../api/app.js';
import { routeIndex } from '../../api/http/route-index.js';
import { koaPath, type RouteSpec } from '../../api/http/route.js';
import { concretePath } from '../support/route-paths.js';
import { loadDocument } from '../support/openapi-check.js';

describe('platform behaviour across routes', () => {
  let svc: TestService;
  let admin: HttpClient;
  let adminId: string;
  let envId: string;

  before(async () => {
    svc = await startTestService();
    admin = await bootstrapAdmin(svc.http);
    adminId = (await admin.get('/api/auth/me')).body.id;
    envId = (await createEnvironment(admin)).id;
  });
  after(() => svc.stop());

  it('keeps no secret in plaintext at rest: registry credentials, SMTP password, system registry token, API tokens', async () => {
    const secrets = {
      regToken: `regtok-${crypto.randomUUID()}`, regPass: `regpw-${crypto.randomUUID()}`,
      smtpPass: `smtppw-${crypto.randomUUID()}`, sysToken: `systok-${crypto.randomUUID()}`,
    };
    expect((await admin.post(`/api/environments/${envId}/registries`, {
      name: 'secret-reg', type: 'generic', registryUrl: 'https://r.example.test', token: secrets.regToken, password: secrets.regPass,
    })).status).to.equal(201);
    expect((await admin.put('/api/admin/smtp', { host: 'h.example.test', fromAddress: 'a@example.test', password: secrets.smtpPass })).status).to.equal(200);
    expect((await admin.patch('/api/settings/system', { registryAccessToken: secrets.sysToken })).status).to.equal(200);
    // With an Idempotency-Key the answer (holding the token) is kept for replays: sealed, too.
    const key = crypto.randomUUID();
    const created = await admin.post('/api/admin/tokens', { name: 'rest', ownerUserId: adminId }, { headers: { 'Idempotency-Key': key } });
    const apiTok = created.body.token as string;
    const replay = await admin.post('/api/admin/tokens', { name: 'rest', ownerUserId: adminId }, { headers: { 'Idempotency-Key': key } });
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body.token).to.equal(apiTok);

    const db = svc.services.db;
    const dump = JSON.stringify([
      await db('registry_connections').select('*'), await db('smtp_config').select('*'),
      await db('system_settings').select('*'), await db('api_tokens').select('*'), await db('audit_logs').select('*'),
      await db('idempotency_keys').select('*'),
    ]);
    for (const value of [...Object.values(secrets), apiTok, apiTok.slice(12)]) expect(dump, value).to.not.include(value);
    expect(dump).to.include(crypto.createHash('sha256').update(apiTok).digest('hex'));
    const reg = await db('registry_connections').where('name', 'secret-reg').first();
    expect(svc.services.secretBox.open(reg.tokenEnc)).to.equal(secrets.regToken);
    expect(svc.logs.join('\n')).to.not.include(secrets.regToken);
  });

  describe('idempotency', () => {
    it('replays the stored answer for the same key and body, with Idempotent-Replayed: true', async () => {
      const key = crypto.randomUUID();
      const b = { name: `idem-${crypto.randomBytes(3).toString('hex')}` };
      const first = await admin.post('/api/environments', b, { headers: { 'Idempotency-Key': key } });
      expect(first.status).to.equal(201);
      const again = await admin.post('/api/environments', b, { headers: { 'Idempotency-Key': key } });
      expect(again.status).to.equal(201);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      const [{ n }] = await svc.services.db('environments').where('name', b.name).count({ n: '*' });
      expect(n).to.equal(1);
    });

    it('answers 409 IDEMPOTENCY_KEY_REUSED for the same key with a different body', async () => {
      const key = crypto.randomUUID();
      expect((await admin.post('/api/environments', { name: `a-${crypto.randomBytes(3).toString('hex')}` }, { headers: { 'Idempotency-Key': key } })).status).to.equal(201);
      const other = await admin.post('/api/environments', { name: `b-${crypto.randomBytes(3).toString('hex')}` }, { headers: { 'Idempotency-Key': key } });
      expect(other.status).to.equal(409);
      expect(other.body).to.include({ code: 'IDEMPOTENCY_KEY_REUSED' });
    });

    it('treats the same key from another caller as independent', async () => {
      const { client: other } = await userWithRole(admin, 'admin');
      const key = crypto.randomUUID();
      const a = await admin.post(`/api/environments/${envId}/registries`, { name: 'ia', type: 'generic', registryUrl: 'https://r.example.test' }, { headers: { 'Idempotency-Key': key } });
      const b = await other.post(`/api/environments/${envId}/registries`, { name: 'ib', type: 'generic', registryUrl: 'https://r.example.test' }, { headers: { 'Idempotency-Key': key } });
      expect([a.status, b.status]).to.deep.equal([201, 201]);
      expect(b.headers.get('idempotent-replayed')).to.equal(null);
      expect(b.body.id).to.not.equal(a.body.id);
    });

    it('does not store failures, so a corrected retry with the same key runs', async () => {
      const key = crypto.randomUUID();
      const bad = await admin.post('/api/admin/service-accounts', { name: 'idem-sa', role: 'nope' }, { headers: { 'Idempotency-Key': key } });
      expect(bad.status).to.equal(400);
      const bad2 = await admin.post('/api/admin/service-accounts', { name: 'idem-sa', role: 'nope' }, { headers: { 'Idempotency-Key': key } });
      expect(bad2.headers.get('idempotent-replayed')).to.equal(null);
    });
  });

  describe('JWT invalidation', () => {
    it('a role change ends the user\'s sessions; a new login carries the new role', async () => {
      const { client, user } = await userWithRole(admin, 'operator');
      expect((await client.get('/api/auth/me')).status).to.equal(200);
      expect((await admin.patch(`/api/users/${user.id}`, { role: 'viewer' })).status).to.equal(200);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      expect((await (await login(svc.http, user.email, PASSWORD)).get('/api/auth/me')).body.role).to.equal('viewer');
    });

    it('deleting a user ends their sessions and their API tokens', async () => {
      const { client, user } = await userWithRole(admin, 'operator');
      const tok = (await admin.post('/api/admin/tokens', { name: 'u', ownerUserId: user.id })).body.token;
      expect((await client.get('/api/auth/me')).status).to.equal(200);
      expect((await admin.withToken(tok).get('/api/auth/me')).status).to.equal(200);
      expect((await admin.delete(`/api/users/${user.id}`)).status).to.equal(204);
      expect((await client.get('/api/auth/me')).status).to.equal(401);
      expect((await admin.withToken(tok).get('/api/auth/me')).status).to.equal(401);
    });
  });

  describe('error envelope', () => {
    it('an unknown route is a 404 envelope with the request id, and every response carries X-Request-Id', async () => {
      const res = await admin.get('/api/no-such-thing');
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'NOT_FOUND' });
      expect(res.body.requestId).to.equal(res.headers.get('x-request-id'));
      for (const r of [await svc.http.get('/health'), await svc.http.get('/api/openapi.json'), await admin.get('/api/users'), await svc.http.get('/api/users')]) {
        expect(r.headers.get('x-request-id')).to.be.a('string').and.not.equal('');
      }
      const echoed = await svc.http.get('/health', { headers: { 'X-Request-Id': 'trace-abc.123' } });
      expect(echoed.headers.get('x-request-id')).to.equal('trace-abc.123');
    });

    it('a 500 says nothing of internals (no stack, no SQL) while the log keeps the detail', async () => {
      await svc.services.db.raw('ALTER TABLE service_accounts RENAME TO service_accounts_moved');
      try {
        const res = await admin.get('/api/admin/service-accounts');
        expect(res.status).to.equal(500);
        expect(res.body).to.include({ code: 'INTERNAL', message: 'Internal server error' });
        expect(res.text).to.not.match(/select|service_accounts|at .*\.ts|relation/i);
        expect(svc.logs.join('\n')).to.include('service_accounts');
      } finally {
        await svc.services.db.raw('ALTER TABLE service_accounts_moved RENAME TO service_accounts');
      }
    });

    it('a body with a non-JSON content type on a JSON route is 415, not silently ignored', async () => {
      const res = await admin.request('PATCH', `/api/environments/${envId}`, undefined, { raw: 'name=renamed', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(res.status).to.equal(415);
      expect(res.body).to.include({ code: 'VALIDATION_ERROR', field: 'Content-Type' });
      const bad = await admin.request('POST', '/api/environments', undefined, { raw: '{"name":' });
      expect(bad.status).to.equal(400);
      expect(bad.body.code).to.equal('VALIDATION_ERROR');
    });
  });

  describe('OpenAPI document', () => {
    it('lists every route the Koa router serves, each with a unique operationId', async () => {
      const doc = (await svc.http.get('/api/openapi.json')).body;
      const { router } = buildRouter(svc.services);
      const missing: string[] = [];
      let count = 0;
      for (const layer of router.stack) {
        const path = String(layer.path).replace(/:(\w+)/g, '{$1}');
        for (const method of layer.methods.filter((m) => m !== 'HEAD')) {
          count++;
          const op = doc.paths[path]?.[method.toLowerCase()];
          if (!op?.operationId) missing.push(`${method} ${path}`);
        }
      }
      expect(count).to.be.greaterThan(30);
      expect(missing).to.deep.equal([]);
      const ids = Object.values(doc.paths).flatMap((p) => Object.values(p as object).map((o: { operationId: string }) => o.operationId));
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it('the route index dispatches every route to the same handler as the full router', async () => {
      // Two apps over the same route table: the full router, and the index of groups. Each route
      // answers its operationId, so a request shows which route took it.
      const { specs } = buildRouter(svc.services);
      const mountNamed = (router: Router, list: RouteSpec[]) => {
        for (const spec of list) router[spec.method.toLowerCase() as 'get'](koaPath(spec.path), (ctx) => { ctx.body = { op: spec.operationId }; });
      };
      const full = new Router();
      mountNamed(full, specs);
      const serve = async (use: (app: Koa) => void) => {
        const app = new Koa();
        use(app);
        app.use(full.allowedMethods());
        const server = app.listen(0, '127.0.0.1');
        await new Promise((r) => server.once('listening', r));
        return server;
      };
      const servers = [await serve((app) => app.use(full.routes())), await serve((app) => app.use(routeIndex(specs, mountNamed)))];
      try {
        const answer = async (server: http.Server, method: string, path: string) => {
          const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method });
          return `${res.status} ${await res.text()}`;
        };
        const probes = specs.flatMap((spec, i) => {
          const path = concretePath(spec, envId);
          return i % 8 ? [[spec.method, path]] : [[spec.method, path], [spec.method, `${path}/`], [spec.method, path.toUpperCase()]];
        });
        probes.push(['GET', '/api/nowhere/x'], ['DELETE', '/api/auth/login'], ['PATCH', '/api/openapi.json']);
        const differ: string[] = [];
        for (let i = 0; i < probes.length; i += 25) {
          await Promise.all(probes.slice(i, i + 25).map(async ([method, path]) => {
            const [a, b] = await Promise.all([answer(servers[0], method, path), answer(servers[1], method, path)]);
            if (a !== b) differ.push(`${method} ${path}: full router ${a}, index ${b}`);
          }));
        }
        expect(differ, differ.join('\n')).to.deep.equal([]);
      } finally {
        for (const server of servers) server.close();
      }
    });

    it('is shaped as OpenAPI 3.0.3, with no JSON Schema 2019+ keywords', async () => {
      const doc = (await svc.http.get('/api/openapi.json')).body;
      expect(doc.openapi).to.equal('3.0.3');
      expect(doc.info).to.include.keys('title', 'version');
      expect(doc.components.schemas.Error).to.be.an('object');
      expect(doc.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
      const banned = ['$defs', 'const', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentRequired',
        'dependentSchemas', '$anchor', '$dynamicRef', 'if', 'then', 'else', 'contentMediaType', 'examples', '$schema', '$id'];
      const problems: string[] = [];
      const walk = (node: unknown, at: string, inSchema: boolean) => {
        if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`, inSchema));
        if (!node || typeof node !== 'object') return;
        const o = node as Record<string, unknown>;
        if (inSchema) {
          for (const k of banned) if (k in o && !(at.endsWith('/properties'))) problems.push(`${at}: ${k}`);
          if (Array.isArray(o.type)) problems.push(`${at}: type array`);
          if (typeof o.exclusiveMinimum === 'number' || typeof o.exclusiveMaximum === 'number') problems.push(`${at}: numeric exclusive bound`);
        }
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`, inSchema || k === 'schema' || k === 'schemas');
      };
      walk(doc, '#', false);
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
        expect(path.startsWith('/')).to.equal(true);
        for (const [method, op] of Object.entries(item)) {
          expect(['get', 'post', 'put', 'patch', 'delete']).to.include(method);
          expect(op.responses, `${method} ${path}`).to.be.an('object').that.is.not.empty;
          const declared = (op.parameters ?? []).filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name);
          const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
          expect(declared, `${method} ${path}`).to.have.members(inPath);
          for (const p of op.parameters ?? []) {
            // shared parameters (Idempotency-Key) are references into components
            const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p;
            expect(param?.schema, `${method} ${path} ${p.name ?? p.$ref}`).to.be.an('object');
          }
        }
      }
      expect(problems).to.deep.equal([]);
    });
  });
});

describe('rate limiting', () => {
  let svc: TestService;
  before(async () => { svc = await startTestService({ RATE_LIMIT_PER_MINUTE: '5' }); });
  after(() => svc.stop());

  it('sends RateLimit headers and answers 429 RATE_LIMITED with Retry-After past the limit; /health is exempt', async () => {
    await loadDocument(svc.url); // the response check's one fetch of the document: the first of the 5
    const first = await svc.http.get('/api/openapi.json');
    expect(first.headers.get('ratelimit-limit')).to.equal('5');
    expect(first.headers.get('ratelimit-remaining')).to.equal('3');
    expect(Number(first.headers.get('ratelimit-reset'))).to.be.within(1, 60);
    for (let i = 0; i < 3; i++) expect((await svc.http.get('/api/openapi.json')).status).to.equal(200);
    const limited = await svc.http.get('/api/auth/me');
    expect(limited.status).to.equal(429);
    expect(limited.body.code).to.equal('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
    expect(limited.headers.get('ratelimit-remaining')).to.equal('0');
    expect((await svc.http.get('/health')).status).to.equal(200);
  });
});
