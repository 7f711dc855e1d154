import type { Services } from '../../controller/services.js';
import { notFound } from '../../controller/errors/app-error.js';
import { MODULE_NAMES, SETTINGS_MODULES, patchSchemaOf, readSchemaOf } from '../../controller/settings/environment-settings.js';
import { validateBody } from '../http/validate.js';
import { route } from '../http/route.js';
import { enumOf } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { environmentOf } from './loaders.js';


function moduleOf(ctx: Ctx) {
  const m = SETTINGS_MODULES[ctx.params.module];
  if (!m) throw notFound(`Settings module '${ctx.params.module}'`);
  return m;
}

export default function settingsRoutes(s: Services) {
  const env = environmentOf(s);
  const load = async (ctx: Ctx, params: Record<string, string>) => {
    const e = await env(ctx, params);
    moduleOf(ctx);
    return e;
  };
  return [
    route({
      method: 'GET', path: '/api/environments/{envId}/settings/{module}', operationId: 'getEnvironmentSettings',
      tag: 'settings', access: 'admin', summary: `Settings of one module (${MODULE_NAMES.join(', ')})`,
      response: { oneOf: MODULE_NAMES.map((m) => readSchemaOf(SETTINGS_MODULES[m])) },
      // One round trip: the environment check and the module's values together (a hot read).
      load: async (ctx, params) => {
        const m = moduleOf(ctx);
        const values = await s.settings.getIfEnvironmentExists(params.envId, params.module);
        if (values === undefined) throw notFound('Environment');
        return { ...m.defaults, ...values };
      },
      handler: async (_ctx, { resource }) => resource,
    }),

    route({
      method: 'PATCH', path: '/api/environments/{envId}/settings/{module}', operationId: 'updateEnvironmentSettings',
      tag: 'settings', access: 'admin', load, summary: 'Change only the fields given; unknown fields are rejected',
      // socket mode by default makes every new server the controller's own machine (see servers.ts)
      actsIn: (_ctx, { params, body }) => (params.module === 'operations' && (body as { defaultDockerMode?: unknown }).defaultDockerMode === 'socket' ? 'installation' : [params.envId]),
      body: { type: 'object' }, response: { oneOf: MODULE_NAMES.map((m) => readSchemaOf(SETTINGS_MODULES[m])) },
      async handler(ctx, { resource, body }) {
        const changes = validateBody<Record<string, unknown>>(patchSchemaOf(moduleOf(ctx)), body);
        ctx.state.audit = { resourceType: 'settings', resourceId: ctx.params.module, details: { module: ctx.params.module, fields: Object.keys(changes) } };
        return s.settings.patch(resource.id, ctx.params.module, changes);
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/settings/{module}/reset', operationId: 'resetEnvironmentSettings',
      tag: 'settings', access: 'admin', load, summary: 'Reset one module to its defaults',
      response: { oneOf: MODULE_NAMES.map((m) => readSchemaOf(SETTINGS_MODULES[m])) },
      async handler(ctx, { resource }) {
        ctx.state.audit = { resourceType: 'settings', resourceId: ctx.params.module, details: { module: ctx.params.module } };
        return s.settings.reset(resource.id, ctx.params.module);
      },
    }),
  ];
}
