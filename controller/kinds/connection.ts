import type { FoundReference, KindDescriptor } from './kind.js';
import { name } from './manifest-fields.js';
import { enumOf, int, nonEmpty, nullable, object, resourceSchemas, str, timestamp, uuid, type ResourceSchemas, type Schema } from './schema.js';

/** The kinds a connection can join: the nodes of the topology. */
export const NODE_KINDS = ['Server', 'Service', 'Database', 'ExternalEntity'];

const nodeKind = enumOf(...NODE_KINDS);
const extra = {
  label: nullable(str({ maxLength: 200 })),
  port: nullable(int(1, 65535)),
  protocol: nullable(nonEmpty(50)),
  description: nullable(str({ maxLength: 2000 })),
};
/** An end as manifests name it, and as the API does. */
const namedEnd: Schema = object({ kind: nodeKind, name: name('Its metadata.name') }, ['kind', 'name']);
const idEnd: Schema = object({ kind: nodeKind, id: uuid }, ['kind', 'id']);

/** A connection stays in the environment it was created in. */
const withFixedEnvironment = (s: ResourceSchemas): ResourceSchemas => ({ ...s, updateReadOnly: [...s.readOnly, 'environmentId'] });

/**
 * A declared link between two nodes of an environment's topology. Its collection is
 * /api/connections?environmentId= (DECISIONS.md), so the environment is a body field.
 */
export const connection: KindDescriptor = {
  kind: 'Connection',
  namespaced: true,
  description: 'A declared link between two servers, services, databases or external entities (for the map).',
  table: 'connections',
  versioned: false,
  schemas: withFixedEnvironment(resourceSchemas({
    writable: {
      environmentId: uuid,
      name: nonEmpty(100, { pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'Default: generated' }),
      from: idEnd, to: idEnd, ...extra,
    },
    readOnly: { id: uuid, source: { type: 'object' }, createdAt: timestamp, updatedAt: timestamp },
    required: ['environmentId', 'from', 'to'],
  })),
  manifest: {
    spec: object({ from: namedEnd, to: namedEnd, ...extra }, ['from', 'to']),
    columns: Object.keys(extra),
    defaults: Object.fromEntries(Object.keys(extra).map((k) => [k, null])),
    // Each end names its own kind.
    referencesIn: (spec): FoundReference[] => (['from', 'to'] as const)
      .filter((end) => typeof spec[end]?.kind === 'string' && typeof spec[end]?.name === 'string')
      .map((end) => ({ kind: spec[end].kind, name: spec[end].name, path: ['spec', end, 'name'] })),
    actual: (row, ctx) => ({
      from: { kind: row.fromKind, name: ctx.nameOf(row.fromKind, row.fromId) },
      to: { kind: row.toKind, name: ctx.nameOf(row.toKind, row.toId) },
    }),
    write: (field, value, idOf) => {
      if (field !== 'from' && field !== 'to') return undefined;
      const end = value as { kind: string; name: string };
      return { [`${field}Kind`]: end.kind, [`${field}Id`]: idOf(end.kind, end.name) };
    },
  },
  api: { path: 'connections', collection: 'query', tagDescription: 'Declared connections between topology nodes' },
};
