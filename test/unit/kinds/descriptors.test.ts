import { expect } from 'chai';
import { buildOpenApi } from '../../../api/openapi/build-openapi.js';
import type { RouteSpec } from '../../../api/http/route.js';
import { allRoutes } from '../../../api/routes/index.js';
import { documentSchema, toDraft7 } from '../../../controller/kinds/document-schema.js';
import { KINDS, kindOf, STORED_KINDS } from '../../../controller/kinds/index.js';
import { SCHEMAS } from '../../../manifests-schema/index.js';
import { SUPPORTED_KINDS } from '../../../controller/manifests/write-objects.js';
import { KIND_ORDER } from '../../../controller/manifests/state.js';
import type { Services } from '../../../controller/services.js';

// Route factories only keep references to the services they are given: any object will do
// to list the specs, nothing is called.
const anything: any = new Proxy(function () {}, { get: (_t, p) => (p === 'then' ? undefined : anything), apply: () => anything });
const specs: RouteSpec[] = allRoutes(anything as Services);
const byId = new Map(specs.map((s) => [s.operationId, s]));
const openapi = buildOpenApi(specs, 'test');
const operation = (id: string) => Object.values(openapi.paths).flatMap((p) => Object.values(p) as any[]).find((o) => o.operationId === id);

/** The API operations of each stored kind, named after it (its own route file or the generic routes). */
const OPERATIONS: Record<string, { create: string; update: string; get: string }> = Object.fromEntries(
  STORED_KINDS.map((k) => [k, { create: `create${k}`, update: `update${k}`, get: `get${k}` }]));

describe('kind descriptors: one source for every view of a kind', () => {
  it('every stored kind has API schemas and create, update and get operations named after it; the schema-only ones have neither', () => {
    expect(STORED_KINDS).to.include.members(['Environment', 'Service', 'ExternalEntity', 'Connection']);
    for (const [kind, ops] of Object.entries(OPERATIONS)) {
      for (const id of Object.values(ops)) expect(byId.has(id), `${kind}: ${id}`).to.equal(true);
    }
    for (const k of KINDS) expect(!!k.schemas, k.kind).to.equal(!!k.table);
  });

  for (const [kind, ops] of Object.entries(OPERATIONS)) {
    it(`${kind}: the routes validate with the descriptor's schemas and the OpenAPI document shows those very schemas`, () => {
      const s = kindOf(kind).schemas!;
      const create = byId.get(ops.create)!;
      const update = byId.get(ops.update)!;
      const get = byId.get(ops.get)!;
      expect(create.body, ops.create).to.equal(s.create);
      expect(update.body, ops.update).to.equal(s.update);
      // a read may add fields of its own (getServer's includeServices), never change the kind's
      const showsRead = (schema: any) => {
        for (const [name, field] of Object.entries(s.read.properties as object)) expect(schema.properties[name], `${ops.get} ${name}`).to.equal(field);
        expect(schema.required, ops.get).to.deep.equal((s.read as any).required);
      };
      showsRead(get.response);
      expect(create.readOnly, ops.create).to.deep.equal(s.readOnly);
      expect(update.readOnly, ops.update).to.deep.equal(s.updateReadOnly ?? s.readOnly);
      expect(operation(ops.create).requestBody.content['application/json'].schema).to.equal(s.create);
      expect(operation(ops.update).requestBody.content['application/json'].schema).to.equal(s.update);
      showsRead(operation(ops.get).responses['200'].content['application/json'].schema);
    });
  }

  it('a kind with `api` gets the generic CRUD routes: five operations, the spec\'s pagination, roles, 409s', () => {
    const served = KINDS.filter((k) => k.api);
    expect(served.map((k) => k.kind)).to.include.members(['Connection', 'ExternalEntity', 'ServerCluster']);
    for (const k of served) {
      const plural = k.api!.path.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
      const ops = [`list${plural}`, `create${k.kind}`, `get${k.kind}`, `update${k.kind}`, `delete${k.kind}`].map((id) => byId.get(id)!);
      expect(ops.every(Boolean), k.kind).to.equal(true);
      const [list, create, get, update, del] = ops;
      expect([list.access, get.access, create.access, update.access, del.access], k.kind).to.deep.equal(['viewer', 'viewer', 'operator', 'operator', 'operator']);
      expect(list.query!.limit).to.deep.include({ minimum: 1, maximum: 200, default: 25 });
      expect(get.path).to.equal(`/api/${k.api!.path}/{id}`);
      expect(create.status).to.equal(201);
      expect(del.status).to.equal(204);
      for (const op of [create, update, del]) expect(op.errors, op.operationId).to.include(409);
      expect(operation(list.operationId).responses['200'].content['application/json'].schema.properties.items.items).to.equal(k.schemas!.read);
    }
  });

  it('manifests-schema and the manifest loader use the descriptor\'s spec, in draft-07', () => {
    for (const k of KINDS) {
      expect(SCHEMAS[k.kind], k.kind).to.deep.equal(documentSchema(k));
      expect((SCHEMAS[k.kind].properties as any).spec, k.kind).to.deep.equal(toDraft7(k.manifest.spec));
    }
  });

  it('the writer applies exactly the stored kinds, in the order of the list', () => {
    expect(SUPPORTED_KINDS).to.deep.equal(STORED_KINDS);
    expect(KIND_ORDER).to.deep.equal(KINDS.map((k) => k.kind));
  });

  it('references name known kinds, and stored kinds only refer to kinds applied before them', () => {
    for (const k of KINDS) {
      for (const r of k.references ?? []) {
        expect(() => kindOf(r.kind), `${k.kind}.${r.path}`).not.to.throw();
        const specProps = Object.keys((k.manifest.spec.properties ?? {}) as object);
        expect(specProps, `${k.kind}.${r.path}`).to.include(r.path.split('.')[0]);
        if (k.table && r.kind !== k.kind) {
          expect(KIND_ORDER.indexOf(r.kind), `${k.kind} refers to ${r.kind}`).to.be.lessThan(KIND_ORDER.indexOf(k.kind));
        }
      }
    }
  });

  it('manifest columns, JSON columns and secrets are fields of the manifest spec; secrets never appear in reads', () => {
    for (const k of KINDS.filter((x) => x.table)) {
      const spec = Object.keys((k.manifest.spec.properties ?? {}) as object);
      for (const c of k.manifest.columns ?? []) expect(spec, `${k.kind} column ${c}`).to.include(c);
      for (const c of k.jsonColumns ?? []) expect(k.manifest.columns ?? [], `${k.kind} JSON column ${c}`).to.include(c);
      const read = Object.keys((k.schemas!.read.properties ?? {}) as object);
      for (const s of k.secrets ?? []) {
        expect(spec, `${k.kind} secret ${s.field}`).to.include((s.valueFrom ?? [s.field])[0]);
        expect(read, `${k.kind} read`).not.to.include(s.field);
        expect(read, `${k.kind} read`).not.to.include(s.column);
      }
    }
  });
});
