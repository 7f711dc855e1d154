import type { Services } from '../../controller/services.js';
import { REGISTRY_TOKEN_FIELD, SYSTEM_DEFAULTS, SYSTEM_FIELDS } from '../../controller/settings/system-settings.js';
import { route } from '../http/route.js';
import { validationError } from '../../controller/errors/app-error.js';
import { parseAllowEntry } from '../../controller/net/outgoing-guard.js';
import { bool, nullable, object, str, timestamp } from '../http/schema.js';

const withDefaults = Object.fromEntries(Object.entries(SYSTEM_FIELDS).map(([k, v]) =>
  [k, { ...v, default: (SYSTEM_DEFAULTS as unknown as Record<string, unknown>)[k] }]));

const systemRead = object({
  ...withDefaults,
  registryAccessToken: { ...nullable(str()), description: 'Masked: a short prefix at most, then asterisks' },
  hasRegistryAccessToken: bool,
  updatedAt: timestamp,
});

export default function systemSettingsRoutes(s: Services) {
  return [
    route({
      method: 'GET', path: '/api/settings/system', operationId: 'getSystemSettings', tag: 'settings', access: 'viewer',
      summary: 'System settings; the registry access token is masked', response: systemRead,
      handler: async () => s.systemSettings.read(),
    }),

    route<Record<string, unknown>>({
      method: 'PATCH', path: '/api/settings/system', operationId: 'updateSystemSettings', tag: 'settings', access: 'admin',
      summary: 'Change only the system settings given; registryAccessToken is write-only (null removes it)',
      body: object({ ...SYSTEM_FIELDS, registryAccessToken: REGISTRY_TOKEN_FIELD }, [], { minProperties: 1 }),
      readOnly: ['hasRegistryAccessToken', 'updatedAt'],
      response: systemRead,
      async handler(ctx, { body }) {
        const allow = (body.outgoingAllowList ?? []) as string[];
        const bad = allow.findIndex((entry) => !parseAllowEntry(entry));
        if (bad >= 0) throw validationError(`'${allow[bad]}' is not a host name, an IP address or a CIDR`, `outgoingAllowList.${bad}`);
        ctx.state.audit = { resourceType: 'settings', resourceId: 'system', details: { fields: Object.keys(body) } };
        return s.systemSettings.patch(body);
      },
    }),
  ];
}
