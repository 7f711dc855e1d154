import { expect } from 'chai';
import type { RouteSpec } from '../../../api/http/route.js';
import type { Schema } from '../../../api/http/schema.js';
import { allRoutes } from '../../../api/routes/index.js';
import type { Services } from '../../../controller/services.js';

// Route factories only keep references to the services they are given: nothing is called.
const anything: any = new Proxy(function () {}, { get: (_t, p) => (p === 'then' ? undefined : anything), apply: () => anything });
const specs: RouteSpec[] = allRoutes(anything as Services);

/** Paths of numbers without a maximum (or above what a double holds exactly) in a schema. */
function unbounded(s: Schema | undefined, at: string, out: string[]): string[] {
  if (!s || typeof s !== 'object') return out;
  if ((s.type === 'integer' || s.type === 'number') && !(typeof s.maximum === 'number' && s.maximum <= Number.MAX_SAFE_INTEGER)) out.push(at);
  for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) unbounded(v, `${at}.${k}`, out);
  if (s.items) unbounded(s.items as Schema, `${at}[]`, out);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') unbounded(s.additionalProperties as Schema, `${at}{}`, out);
  for (const k of ['oneOf', 'anyOf', 'allOf']) for (const x of (s[k] ?? []) as Schema[]) unbounded(x, at, out);
  return out;
}

describe('request schemas bound every integer', () => {
  it('every number a request body or query can carry has a maximum (so 2^63 is a 400, never a database error)', () => {
    const found = specs.flatMap((spec) => [
      ...unbounded(spec.body, `${spec.method} ${spec.path} body`, []),
      ...Object.entries(spec.query ?? {}).flatMap(([k, v]) => unbounded(v, `${spec.method} ${spec.path} query.${k}`, [])),
    ]);
    expect(found).to.deep.equal([]);
  });
});
