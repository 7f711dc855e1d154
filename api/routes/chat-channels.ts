import type { Services } from '../../controller/services.js';
import { conflict, notFound, validationError } from '../../controller/errors/app-error.js';
import { NOTIFICATION_CODES } from '../../controller/notifications/types.js';
import { chatPayload } from '../../controller/delivery/chat-routing.js';
import { sendTest, USER_AGENT } from '../../controller/delivery/http-post.js';
import { route } from '../http/route.js';
import { arrayOf, bool, enumOf, int, listOf, nonEmpty, nullable, object, paginationQuery, resourceSchemas, str, timestamp, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { environmentOf } from './loaders.js';

export const chatChannelSchemas = resourceSchemas({
  writable: {
    name: nonEmpty(200),
    // The incoming-webhook URL is the credential: write-only, reads give hasWebhookUrl.
    webhookUrl: str({ format: 'uri', pattern: '^https?://', maxLength: 2048 }),
    isDefault: { type: 'boolean', default: false },
    enabled: { type: 'boolean', default: true },
  },
  readOnly: { id: uuid, hasWebhookUrl: bool, createdAt: timestamp, updatedAt: timestamp },
  required: ['name', 'webhookUrl'],
  writeOnly: ['webhookUrl'],
});
const routingRead = object({ id: uuid, type: str(), chatChannelId: uuid, createdAt: timestamp });
const testResult = object({ delivered: bool, status: int(), chatChannelId: uuid });

type Row = Record<string, any>;
export const toChatChannel = (c: Row) => ({
  id: c.id, name: c.name, hasWebhookUrl: !!c.webhookUrlEnc, isDefault: c.isDefault, enabled: c.enabled, createdAt: c.createdAt, updatedAt: c.updatedAt,
});

/** Posts one Slack-compatible message to the channel now; 502 SERVICE_UNAVAILABLE when it is refused. */
async function sendNow(s: Services, channel: Row, text: string, environmentName: string | null) {
  const body = JSON.stringify(chatPayload({ title: 'Stevedore test message', defaultSeverity: 'info' }, text, environmentName));
  const { webhookTimeoutMs } = await s.deliveries.settings.get();
  const out = await sendTest(s.outgoing, 'chat endpoint', s.secretBox.open(channel.webhookUrlEnc), body,
    { 'content-type': 'application/json', 'user-agent': USER_AGENT }, webhookTimeoutMs, 'Check the channel\'s incoming-webhook URL');
  return { ...out, chatChannelId: channel.id as string };
}

export default function chatChannelRoutes(s: Services) {
  const loadChannel = async (_ctx: Ctx, p: Record<string, string>) => {
    const c = await s.chatChannels.findById(p.id);
    if (!c) throw notFound('Chat channel');
    return c as Row;
  };
  const env = environmentOf(s);
  const guard = async <T>(op: Promise<T>): Promise<T> => {
    try {
      return await op;
    } catch (e) {
      if ((e as { code?: string }).code === '23505') throw conflict('A chat channel with this name already exists', undefined, 'name');
      throw e;
    }
  };
  /** The environment's notification view: {settings, channels (enabled), defaultChannel}. */
  const envView = async (envId: string) => {
    const [settings, channels] = await Promise.all([
      s.settings.get<{ chatChannelId: string | null }>(envId, 'notifications'),
      s.chatChannels.listEnabled(),
    ]);
    const def = channels.find((c: Row) => c.isDefault);
    return { settings: { chatChannelId: settings.chatChannelId ?? null }, channels: channels.map(toChatChannel), defaultChannel: def ? toChatChannel(def) : null };
  };

  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/admin/chat-channels', operationId: 'listChatChannels', tag: 'notifications', access: 'admin',
      summary: 'Chat channels (Slack-compatible incoming webhooks)', query: paginationQuery, response: listOf(chatChannelSchemas.read),
      async handler(_ctx, { query }) {
        const page = await s.chatChannels.page(query);
        return { ...page, items: page.items.map(toChatChannel) };
      },
    }),

    route<{ name: string; webhookUrl: string; isDefault: boolean; enabled: boolean }>({
      method: 'POST', path: '/api/admin/chat-channels', operationId: 'createChatChannel', tag: 'notifications', access: 'admin',
      summary: 'Create a chat channel; isDefault moves the default flag to it', body: chatChannelSchemas.create,
      readOnly: chatChannelSchemas.readOnly, status: 201, response: chatChannelSchemas.read, errors: [409],
      async handler(ctx, { body }) {
        await s.outgoing.validate(body.webhookUrl, 'webhookUrl');
        const row = await guard(s.chatChannels.create({
          name: body.name, webhookUrlEnc: s.secretBox.seal(body.webhookUrl), isDefault: body.isDefault, enabled: body.enabled,
        }));
        ctx.state.audit = { resourceType: 'chat-channels', resourceId: row.id, details: { fields: Object.keys(body) } };
        return toChatChannel(row);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'GET', path: '/api/admin/chat-channels/{id}', operationId: 'getChatChannel', tag: 'notifications', access: 'admin',
      summary: 'One chat channel', load: loadChannel, response: chatChannelSchemas.read,
      handler: async (_ctx, { resource }) => toChatChannel(resource),
    }),

    route<Partial<{ name: string; webhookUrl: string; isDefault: boolean; enabled: boolean }>, unknown, Row>({
      method: 'PATCH', path: '/api/admin/chat-channels/{id}', operationId: 'updateChatChannel', tag: 'notifications', access: 'admin',
      summary: 'Change a chat channel', load: loadChannel, body: chatChannelSchemas.update, readOnly: chatChannelSchemas.readOnly,
      response: chatChannelSchemas.read, errors: [409],
      async handler(ctx, { resource, body }) {
        const { webhookUrl, ...rest } = body;
        if (webhookUrl !== undefined) await s.outgoing.validate(webhookUrl, 'webhookUrl');
        const row = await guard(s.chatChannels.update(resource.id, {
          ...rest, ...(webhookUrl !== undefined && { webhookUrlEnc: s.secretBox.seal(webhookUrl) }),
        }));
        ctx.state.audit = { resourceType: 'chat-channels', resourceId: row.id, details: { fields: Object.keys(body) } };
        return toChatChannel(row);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'DELETE', path: '/api/admin/chat-channels/{id}', operationId: 'deleteChatChannel', tag: 'notifications', access: 'admin',
      summary: 'Delete a chat channel, its routings and environment overrides pointing at it', load: loadChannel, status: 204,
      async handler(ctx, { resource }) {
        await s.chatChannels.delete(resource.id);
        ctx.state.audit = { resourceType: 'chat-channels', resourceId: resource.id, details: { name: resource.name } };
        return undefined;
      },
    }),

    route<unknown, unknown, Row>({
      method: 'POST', path: '/api/admin/chat-channels/{id}/test', operationId: 'testChatChannel', tag: 'notifications', access: 'admin',
      summary: 'Post a test message to the channel now: 200 {delivered, status} or 502', load: loadChannel, errors: [502],
      response: testResult,
      async handler(ctx, { resource }) {
        ctx.state.audit = { resourceType: 'chat-channels', resourceId: resource.id };
        return sendNow(s, resource, `Test message for channel ${resource.name}`, null);
      },
    }),

    route<unknown, { limit: number; offset: number; type?: string }>({
      method: 'GET', path: '/api/admin/notification-routings', operationId: 'listNotificationRoutings', tag: 'notifications',
      access: 'admin', summary: 'Which notification types go to which chat channels',
      query: { ...paginationQuery, type: enumOf(...NOTIFICATION_CODES) }, response: listOf(routingRead),
      async handler(_ctx, { query }) {
        const page = await s.notificationRoutings.page(query.type, query);
        return { ...page, items: page.items.map((r) => ({ id: r.id, type: r.type, chatChannelId: r.chatChannelId, createdAt: r.createdAt })) };
      },
    }),

    route<{ type: string; chatChannelId: string }>({
      method: 'POST', path: '/api/admin/notification-routings', operationId: 'createNotificationRouting', tag: 'notifications',
      access: 'admin', summary: 'Route a notification type to a chat channel',
      body: object({ type: enumOf(...NOTIFICATION_CODES), chatChannelId: uuid }, ['type', 'chatChannelId']),
      status: 201, response: routingRead, errors: [409],
      async handler(ctx, { body }) {
        if (!(await s.chatChannels.findById(body.chatChannelId))) {
          throw validationError('No chat channel has this id', 'chatChannelId');
        }
        const row = await s.notificationRoutings.insertUnlessRouted(body);
        if (!row) throw conflict('This type is already routed to this channel');
        ctx.state.audit = { resourceType: 'notification-routings', resourceId: row.id, details: { type: body.type, chatChannelId: body.chatChannelId } };
        return { id: row.id, type: row.type, chatChannelId: row.chatChannelId, createdAt: row.createdAt };
      },
    }),

    route({
      method: 'DELETE', path: '/api/admin/notification-routings/{id}', operationId: 'deleteNotificationRouting', tag: 'notifications',
      access: 'admin', summary: 'Remove a routing', status: 204,
      async handler(ctx, { params }) {
        if (!(await s.notificationRoutings.delete(params.id))) throw notFound('Notification routing');
        ctx.state.audit = { resourceType: 'notification-routings', resourceId: params.id };
        return undefined;
      },
    }),

    // The environment's "notifications" setting (kept out of the five-module registry).
    route({
      method: 'GET', path: '/api/environments/{envId}/settings/notifications', operationId: 'getEnvironmentNotificationSettings',
      tag: 'settings', access: 'admin', load: env,
      summary: '{settings, channels, defaultChannel}: channels lists enabled chat channels, defaultChannel is the global default',
      response: object({ settings: object({ chatChannelId: nullable(uuid) }), channels: arrayOf(chatChannelSchemas.read), defaultChannel: nullable(chatChannelSchemas.read) }),
      handler: async (_ctx, { params }) => envView(params.envId),
    }),

    route<{ chatChannelId: string | null }>({
      method: 'PATCH', path: '/api/environments/{envId}/settings/notifications', operationId: 'updateEnvironmentNotificationSettings',
      tag: 'settings', access: 'admin', load: env, summary: 'Set or clear (null: inherit the global default) the environment\'s chat channel',
      body: object({ chatChannelId: nullable(uuid) }, ['chatChannelId']),
      response: object({ settings: object({ chatChannelId: nullable(uuid) }), channels: arrayOf(chatChannelSchemas.read), defaultChannel: nullable(chatChannelSchemas.read) }),
      async handler(ctx, { params, body }) {
        if (body.chatChannelId !== null) {
          const c = await s.chatChannels.findById(body.chatChannelId);
          if (!c) throw validationError('No chat channel has this id', 'chatChannelId');
          if (!c.enabled) throw validationError('This chat channel is disabled', 'chatChannelId', 'Enable the channel first');
        }
        await s.settings.patch(params.envId, 'notifications', { chatChannelId: body.chatChannelId });
        ctx.state.audit = { resourceType: 'settings', resourceId: 'notifications', environmentId: params.envId, details: { module: 'notifications', fields: ['chatChannelId'] } };
        return envView(params.envId);
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/settings/notifications/test', operationId: 'testEnvironmentNotificationChannel',
      tag: 'settings', access: 'admin', load: env, errors: [409, 502],
      summary: 'Send a test message through the resolved channel (the override if set, else the global default)', response: testResult,
      async handler(ctx, { resource }) {
        const view = await envView(resource.id);
        const id = view.settings.chatChannelId ?? view.defaultChannel?.id;
        const channel = id ? await s.chatChannels.findEnabled(id) : null;
        if (!channel) throw conflict('No chat channel is set for this environment and there is no enabled default channel',
          'Set chatChannelId here, or mark a chat channel isDefault');
        ctx.state.audit = { resourceType: 'settings', resourceId: 'notifications', environmentId: resource.id, details: { chatChannelId: channel.id } };
        return sendNow(s, channel, `Test message for environment ${resource.name}`, resource.name);
      },
    }),
  ];
}
