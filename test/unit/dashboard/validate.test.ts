// The dashboard's form validator (dashboard/src/validate.ts) against the API's own (Ajv, as
// api/http/validate.ts sets it up): over every request body schema of the OpenAPI document, for a
// battery of values made from each schema (a field missing, of the wrong type, empty, too long,
// out of range, off its pattern or enum, an unknown field, a list too long), both must say valid
// or both invalid. A form then refuses what the API would refuse, and sends what it would take.
import { expect } from 'chai';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../../api/openapi/build-openapi.js';
import type { RouteSpec } from '../../../api/http/route.js';
import { allRoutes } from '../../../api/routes/index.js';
import type { Services } from '../../../controller/services.js';
import { humanize, validate, type Schema } from '../../../dashboard/src/validate.js';

// Route factories only keep references to the services they are given (as in descriptors.test.ts)
const anything: any = new Proxy(function () {}, { get: (_t, p) => (p === 'then' ? undefined : anything), apply: () => anything });
const doc = buildOpenApi(allRoutes(anything as Services) as RouteSpec[], 'test') as any;

const resolve = (s: any): any => {
  if (!s || typeof s !== 'object') return s;
  if (Array.isArray(s)) return s.map(resolve);
  if (typeof s.$ref === 'string') return resolve(doc.components.schemas[s.$ref.split('/').pop()]);
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, resolve(v)]));
};

/** A value of the schema's type that breaks nothing else (the shortest the schema takes), when one is easy to make. */
function fitting(s: Schema): unknown {
  if (s.enum) return s.enum.find((v) => v !== null);
  if (s.default !== undefined) return s.default;
  switch (s.type) {
    case 'boolean': return true;
    case 'integer': case 'number': return s.minimum ?? 1;
    case 'array': return s.minItems ? undefined : [];
    case 'object': return s.properties && (s.required ?? []).length ? undefined : {};
    case 'string': return s.pattern || s.format ? undefined : 'x'.repeat(Math.max(1, s.minLength ?? 1));
    default: return undefined;
  }
}

/** Values that each break one rule of one field (or of the whole body), and one that breaks none, where one can be made. */
function battery(body: Schema): unknown[] {
  const base: Record<string, unknown> = {};
  for (const r of body.required ?? []) base[r] = fitting(body.properties?.[r] ?? {});
  const values: unknown[] = [base, {}, { ...base, unknownField: 1 }, null, []];
  for (const [k, s] of Object.entries(body.properties ?? {})) {
    const put = (v: unknown) => values.push({ ...base, [k]: v });
    put(null);
    put(s.type === 'string' ? 42 : 'text');
    put(s.type === 'array' ? {} : [1]);
    put(true);
    if (s.type === 'string') {
      put('');
      if (s.maxLength !== undefined) put('a'.repeat(s.maxLength + 1));
      if (s.pattern) put('not matching ! pattern');
      if (s.format === 'uuid') { put('not-a-uuid'); put('6f1c2c1e-8c1a-4c3e-9b1d-0b6f1f0e1a2b'); }
      if (s.format === 'email') { put('nobody'); put('a@b.test'); }
      if (s.format === 'uri') { put('not a url'); put('https://example.test/x'); }
    }
    if (s.type === 'integer' || s.type === 'number') {
      if (s.minimum !== undefined) { put(s.minimum - 1); put(s.minimum); }
      if (s.maximum !== undefined) { put(s.maximum + 1); put(s.maximum); }
      if (s.type === 'integer') put(1.5);
    }
    if (s.enum) { put('not-one-of-them'); put(s.enum.find((v) => v !== null)); }
    if (s.type === 'array') {
      if (s.maxItems !== undefined) put(Array.from({ length: s.maxItems + 1 }, () => fitting(s.items ?? {}) ?? 'x'));
      const one = fitting(s.items ?? {});
      if (one !== undefined) { put([one]); if (s.uniqueItems) put([one, one]); }
    }
    if (s.type === 'object' && typeof s.additionalProperties === 'object') { put({ KEY: 'value' }); put({ KEY: 7 }); }
    const ok = fitting(s);
    if (ok !== undefined) put(ok);
  }
  return values;
}

describe('dashboard form validation', () => {
  const ajv = new Ajv({ allErrors: false, useDefaults: false, strict: false, removeAdditional: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const bodies: Array<[string, Schema]> = [];
  for (const ops of Object.values(doc.paths) as any[]) {
    for (const op of Object.values(ops) as any[]) {
      const body = resolve(op?.requestBody?.content?.['application/json']?.schema);
      if (body?.type === 'object' && body.properties) bodies.push([op.operationId, body]);
    }
  }

  it("agrees with the API's validator on every request body schema", () => {
    expect(bodies.length).to.be.greaterThan(40);
    let compared = 0;
    const disagreements: string[] = [];
    for (const [id, body] of bodies) {
      const api = ajv.compile(body);
      for (const value of battery(body)) {
        const apiSays = api(structuredClone(value));
        const formSays = validate(body, value).length === 0;
        compared++;
        if (apiSays !== formSays) disagreements.push(`${id} ${JSON.stringify(value).slice(0, 120)}: API ${apiSays ? 'takes' : 'refuses'} it, the form ${formSays ? 'takes' : 'refuses'} it`);
      }
    }
    expect(disagreements, disagreements.slice(0, 15).join('\n')).to.deep.equal([]);
    console.log(`      ${compared} values over ${bodies.length} body schemas`);
    expect(compared).to.be.greaterThan(1000);
  });

  it('names the field of each problem, nested ones by their path', () => {
    const service = bodies.find(([id]) => id === 'createService')![1];
    const problems = validate(service, { name: 'x y', containerImageId: 'nope', env: { A: 1 }, healthCheck: { test: [] }, drainSec: 601 });
    expect(problems.map((p) => p.path).sort()).to.deep.equal(['containerImageId', 'drainSec', 'env.A', 'healthCheck.test', 'name']);
    expect(problems.find((p) => p.path === 'drainSec')!.message).to.equal('Drain (s) must be at most 600');
  });

  it('labels fields from their names', () => {
    expect(['sshPort', 'containerImageId', 'environmentIds', 'collectCpu', 'drainSec'].map(humanize))
      .to.deep.equal(['SSH port', 'Container image', 'Environments', 'Collect CPU', 'Drain (s)']);
  });
});
