import type { Services } from '../../controller/services.js';
import { conflict, validationError } from '../../controller/errors/app-error.js';
import { definitionOf } from '../../controller/catalog/shipped-types-sync.js';
import { CLI_VERSION } from '../../controller/version.js';
import { toCommandType, type CommandTypeRow, type CommandTypeSpec, type CommandTypesRepository } from '../../controller/store/repositories/command-types.js';
import { DEFAULT_DATABASE_TYPES, DEFAULT_SERVICE_TYPES, type TypeDefinition } from '../../controller/catalog/default-types.js';
import { route } from '../http/route.js';
import { arrayOf, enumOf, listOf, object, paginationQuery, str, timestamp } from '../http/schema.js';
import { commandTypeSchemas, typeCommandSchema } from './catalog-schemas.js';
import { checkTypeCommands } from './catalog-checks.js';
import { rowOf } from './loaders.js';

type Kind = {
  path: 'service-types' | 'database-types'; noun: string; op: string; repo: CommandTypesRepository; withPort: boolean;
  defaults: TypeDefinition[];
};

/** Service types and database types: viewers read them, admins manage them. */
function typeRoutes(s: Services, k: Kind) {
  const schemas = commandTypeSchemas(k.withPort);
  const load = rowOf(k.repo, k.noun);
  const base = `/api/settings/${k.path}`;
  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: base, operationId: `list${k.op}s`, tag: 'settings', access: 'viewer',
      summary: `${k.noun}s with their predefined commands, by name`, query: paginationQuery, response: listOf(schemas.read),
      async handler(_ctx, { query }) {
        const page = await k.repo.list({}, query, 'name');
        return { ...page, items: page.items.map(toCommandType) };
      },
    }),
    route<CommandTypeSpec>({
      method: 'POST', path: base, operationId: `create${k.op}`, tag: 'settings', access: 'admin',
      summary: `Create a ${k.noun.toLowerCase()}`, body: schemas.create, readOnly: schemas.readOnly, status: 201,
      response: schemas.read, errors: [409],
      async handler(ctx, { body }) {
        checkTypeCommands(body.commands);
        const row = await k.repo.create(body);
        ctx.state.audit = { resourceType: k.path, details: { name: row.name, commands: row.commands.length } };
        return toCommandType(row);
      },
    }),
    route({
      method: 'POST', path: `${base}/reset`, operationId: `reset${k.op}s`, tag: 'settings', access: 'admin',
      summary: `Restore the shipped ${k.noun.toLowerCase()}s to their defaults; custom types are kept`, response: listOf(schemas.read),
      async handler(ctx) {
        const restored = await k.repo.resetDefaults(k.defaults);
        ctx.state.audit = { resourceType: k.path, resourceId: null, details: { restored } };
        const items = (await k.repo.all()).map(toCommandType);
        return { items, total: items.length, limit: items.length, offset: 0 };
      },
    }),
    route({
      method: 'GET', path: `${base}/export`, operationId: `export${k.op}s`, tag: 'settings', access: 'viewer',
      summary: `Every ${k.noun.toLowerCase()} as a portable definition (no ids or timestamps): each item is a valid create body`,
      response: object({
        kind: enumOf(k.path), version: str(), exportedAt: timestamp,
        items: arrayOf(object({ name: str(), description: str(), defaultImage: str(), ...(k.withPort && { defaultPort: { type: 'integer' } }), commands: arrayOf(typeCommandSchema) })),
      }),
      async handler(ctx) {
        const items = (await k.repo.all()).map(definitionOf);
        ctx.set('content-disposition', `attachment; filename="stevedore-${k.path}.json"`);
        return { kind: k.path, version: CLI_VERSION, exportedAt: new Date().toISOString(), items };
      },
    }),
    route<{ names: string[] }, unknown, CommandTypeRow>({
      method: 'POST', path: `${base}/{id}/commands/reorder`, operationId: `reorder${k.op}Commands`, tag: 'settings', access: 'admin',
      summary: `Put a ${k.noun.toLowerCase()}'s commands in a new order: names lists every command name once`,
      load, body: object({ names: arrayOf(str({ maxLength: 63 }), { maxItems: 100, uniqueItems: true }) }, ['names']),
      response: schemas.read,
      async handler(ctx, { resource, body }) {
        const current = resource.commands.map((c) => c.name);
        const unknown = body.names.find((n) => !current.includes(n));
        if (unknown) throw validationError(`The type has no command '${unknown}'`, 'names');
        const missing = current.find((n) => !body.names.includes(n));
        if (missing) throw validationError(`names must list every command; '${missing}' is missing`, 'names');
        const row = await k.repo.reorderCommands(resource, body.names);
        ctx.state.audit = { resourceType: k.path, details: { name: resource.name, from: current, to: body.names } };
        return toCommandType(row!);
      },
    }),
    route<CommandTypeSpec, unknown, CommandTypeRow>({
      method: 'PATCH', path: `${base}/{id}`, operationId: `update${k.op}`, tag: 'settings', access: 'admin',
      summary: `Change a ${k.noun.toLowerCase()}; commands replace the whole list`, load, body: schemas.update,
      readOnly: schemas.readOnly, response: schemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        checkTypeCommands(body.commands);
        if (k.path === 'service-types' && body.name && body.name !== resource.name && (await s.services.countUsingType(resource.name))) {
          throw conflict('Services use this type under its current name', 'Change the type of those services first');
        }
        const row = await k.repo.change(resource.id, body);
        ctx.state.audit = { resourceType: k.path, details: { name: row!.name, fields: Object.keys(body) } };
        return toCommandType(row!);
      },
    }),
    route<unknown, unknown, CommandTypeRow>({
      method: 'DELETE', path: `${base}/{id}`, operationId: `delete${k.op}`, tag: 'settings', access: 'admin',
      summary: `Delete a ${k.noun.toLowerCase()}${k.path === 'service-types' ? '; refused while services use it' : ''}`,
      load, status: 204, errors: [409],
      async handler(ctx, { resource }) {
        if (k.path === 'service-types') {
          const n = await s.services.countUsingType(resource.name);
          if (n) throw conflict(`${n} service(s) use the type '${resource.name}'`, 'Change the type of those services first');
        }
        await k.repo.delete(resource.id);
        ctx.state.audit = { resourceType: k.path, details: { name: resource.name } };
        return undefined;
      },
    }),
  ];
}

export default function commandTypeRoutes(s: Services) {
  return [
    ...typeRoutes(s, { path: 'service-types', noun: 'Service type', op: 'ServiceType', repo: s.serviceTypes, withPort: false, defaults: DEFAULT_SERVICE_TYPES }),
    ...typeRoutes(s, { path: 'database-types', noun: 'Database type', op: 'DatabaseType', repo: s.databaseTypes, withPort: true, defaults: DEFAULT_DATABASE_TYPES }),
  ];
}
