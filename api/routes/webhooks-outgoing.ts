import type { Services } from '../../controller/services.js';
import type { DeliveryTargetsRepository } from '../../controller/store/repositories/delivery-targets.js';
import { notFound, validationError } from '../../controller/errors/app-error.js';
import {
  webhookEventTypes, webhookHealth, webhookSecret, webhookSubscription, webhookUrl, withWriteOnlyHeaders,
} from '../../controller/kinds/webhook-subscription.js';
import { sendTest, webhookHeaders } from '../../controller/delivery/http-post.js';
import { maskHeaders, openHeaders, patchHeaders, sealHeaders } from '../../controller/delivery/sealed-headers.js';
import { route } from '../http/route.js';
import {
  arrayOf, bool, enumOf, int, listOf, nonEmpty, nullable, nullableTimestamp, object, paginationQuery, resourceSchemas, str, stringMap, timestamp, uuid,
} from '../http/schema.js';
import type { Ctx } from '../http/types.js';
import { environmentOf } from './loaders.js';

export const outgoingWebhookSchemas = withWriteOnlyHeaders(resourceSchemas({
  writable: {
    name: nonEmpty(200), url: webhookUrl, secret: webhookSecret, headers: stringMap(50),
    enabled: bool, eventTypes: webhookEventTypes, environmentIds: arrayOf(uuid, { uniqueItems: true, maxItems: 200 }),
  },
  readOnly: webhookHealth,
  required: ['name', 'url', 'enabled'],
  writeOnly: ['secret'],
}));

const subscriptionSchemas = webhookSubscription.schemas!;

const deliveryRead = object({
  id: int(1), event: str(), status: enumOf('pending', 'delivering', 'succeeded', 'failed', 'cancelled'), attempts: int(0),
  lastStatus: nullable(int()), lastError: nullable(str()), durationMs: nullable(int()), createdAt: timestamp,
  nextAttemptAt: nullableTimestamp, completedAt: nullableTimestamp,
});

type Row = Record<string, any>;
const common = (w: Row) => ({
  id: w.id, name: w.name, url: w.url, hasSecret: !!w.secretEnc, headers: maskHeaders(w.headers), enabled: w.enabled,
  eventTypes: w.eventTypes ?? [], failureCount: w.failureCount, failed: w.failed,
  lastDeliveredAt: w.lastDeliveredAt, lastFailedAt: w.lastFailedAt, createdAt: w.createdAt, updatedAt: w.updatedAt,
});
export const toOutgoingWebhook = (w: Row) => ({ ...common(w), environmentIds: w.environmentIds ?? [] });
export const toSubscription = (w: Row) => ({ ...common(w), environmentId: w.environmentId, source: w.source ?? { kind: 'api' } });

const MAX_HEADERS = 50;

/**
 * Column values of a create or update body (secrets and header values sealed, arrays as JSON).
 * An update's headers patch the stored ones (`current`): absent names stay, null removes one.
 */
function columns(s: Services, body: Row, current?: Row): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'secret') out.secretEnc = s.secretBox.sealOrNull(v as string | null);
    else if (k === 'headers') {
      const headers = patchHeaders(current?.headers, sealHeaders(s.secretBox, v as Record<string, string | null>));
      if (Object.keys(headers).length > MAX_HEADERS) throw validationError(`A webhook has at most ${MAX_HEADERS} custom headers`, 'headers');
      out.headers = JSON.stringify(headers);
    }
    else if (k === 'eventTypes' || k === 'environmentIds') out[k] = JSON.stringify(v);
    else out[k] = v;
  }
  return out;
}

/** Field names only (never values) for the audit entry. */
const auditFields = (ctx: Ctx, body: Row, extra: Row = {}) => {
  ctx.state.audit = { ...ctx.state.audit, details: { fields: Object.keys(body), ...extra } };
};

/** A page of one receiver's outbox rows, newest first. */
async function deliveriesOf(targets: DeliveryTargetsRepository, targetId: string, query: { limit: number; offset: number; status?: string }) {
  const page = await targets.deliveries(targetId, query.status, query);
  return {
    ...page,
    items: page.items.map((d: Row) => ({
      id: d.id, event: d.eventType, status: d.status, attempts: d.attempts, lastStatus: d.lastStatus, lastError: d.lastError,
      durationMs: d.durationMs, createdAt: d.createdAt, nextAttemptAt: ['pending', 'delivering'].includes(d.status) ? d.nextAttemptAt : null,
      completedAt: d.completedAt,
    })),
  };
}

/** Sends the spec's test body once, now, and answers 200 {delivered, status} or 502. */
export async function testSend(s: Services, target: Row): Promise<{ delivered: true; status: number }> {
  const body = JSON.stringify({ event: 'test', timestamp: new Date().toISOString(), data: { message: `Test delivery from Stevedore to ${target.name}` } });
  const secret = target.secretEnc ? s.secretBox.open(target.secretEnc) : null;
  const settings = await s.deliveries.settings.get();
  return sendTest(s.outgoing, 'receiver', target.url, body, webhookHeaders(body, secret, openHeaders(s.secretBox, target.headers)),
    settings.webhookTimeoutMs, 'Check the URL and that the receiver answers 2xx');
}

// Subscriptions by hand, not on the generic CRUD routes (api/routes/kind-crud.ts): they are listed
// at /api/environments/{envId}/webhooks but live at /api/webhook-subscriptions/{id}, and they share
// sealed headers, tests and deliveries with the admin webhooks of this file.
export default function outgoingWebhookRoutes(s: Services) {
  const loadWebhook = async (_ctx: Ctx, p: Record<string, string>) => {
    const w = await s.outgoingWebhooks.findById(p.id);
    if (!w) throw notFound('Webhook');
    return w as Row;
  };
  const loadSubscription = async (_ctx: Ctx, p: Record<string, string>) => {
    const w = await s.webhookSubscriptions.findById(p.id);
    if (!w) throw notFound('Webhook subscription');
    return w as Row;
  };
  /** Item routes of a subscription: an environment-limited token must hold its environment. */
  const loadSubscriptionFor = async (ctx: Ctx, p: Record<string, string>) => {
    const w = await loadSubscription(ctx, p);
    const allowed = ctx.state.actor?.environmentIds;
    if (allowed && !allowed.includes(w.environmentId)) throw notFound('Webhook subscription');
    return w;
  };
  const env = environmentOf(s);

  return [
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/admin/webhooks', operationId: 'listOutgoingWebhooks', tag: 'webhooks', access: 'admin',
      summary: 'Outgoing webhooks', query: paginationQuery, response: listOf(outgoingWebhookSchemas.read),
      async handler(_ctx, { query }) {
        const page = await s.outgoingWebhooks.page({}, query);
        return { ...page, items: page.items.map(toOutgoingWebhook) };
      },
    }),

    route<Row>({
      method: 'POST', path: '/api/admin/webhooks', operationId: 'createOutgoingWebhook', tag: 'webhooks', access: 'admin',
      summary: 'Create an outgoing webhook (secret is write-only; reads show hasSecret)', body: outgoingWebhookSchemas.create,
      readOnly: outgoingWebhookSchemas.readOnly, status: 201, response: outgoingWebhookSchemas.read,
      async handler(ctx, { body }) {
        await s.outgoing.validate(body.url, 'url');
        const row = await s.outgoingWebhooks.insert(columns(s, body));
        ctx.state.audit = { resourceType: 'webhooks', resourceId: row.id };
        auditFields(ctx, body);
        return toOutgoingWebhook(row);
      },
    }),

    route({
      method: 'GET', path: '/api/admin/webhooks/{id}', operationId: 'getOutgoingWebhook', tag: 'webhooks', access: 'admin',
      summary: 'One outgoing webhook', load: loadWebhook, response: outgoingWebhookSchemas.read,
      handler: async (_ctx, { resource }) => toOutgoingWebhook(resource),
    }),

    route<Row, unknown, Row>({
      method: 'PATCH', path: '/api/admin/webhooks/{id}', operationId: 'updateOutgoingWebhook', tag: 'webhooks', access: 'admin',
      summary: 'Change an outgoing webhook; secret null removes it', load: loadWebhook, body: outgoingWebhookSchemas.update,
      readOnly: outgoingWebhookSchemas.readOnly, response: outgoingWebhookSchemas.read,
      async handler(ctx, { resource, body }) {
        if (body.url !== undefined) await s.outgoing.validate(body.url, 'url');
        const row = await s.outgoingWebhooks.update(resource.id, columns(s, body, resource));
        ctx.state.audit = { resourceType: 'webhooks', resourceId: row.id };
        auditFields(ctx, body);
        return toOutgoingWebhook(row);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'DELETE', path: '/api/admin/webhooks/{id}', operationId: 'deleteOutgoingWebhook', tag: 'webhooks', access: 'admin',
      summary: 'Delete an outgoing webhook and its pending deliveries', load: loadWebhook, status: 204,
      async handler(ctx, { resource }) {
        await s.outgoingWebhooks.delete(resource.id);
        ctx.state.audit = { resourceType: 'webhooks', resourceId: resource.id, details: { name: resource.name } };
        return undefined;
      },
    }),

    route<unknown, unknown, Row>({
      method: 'POST', path: '/api/admin/webhooks/{id}/test', operationId: 'testOutgoingWebhook', tag: 'webhooks', access: 'admin',
      summary: "Send {event: 'test'} now: 200 {delivered, status} on 2xx, else 502 with the receiver's status",
      load: loadWebhook, errors: [502], response: object({ delivered: bool, status: int() }),
      async handler(ctx, { resource }) {
        ctx.state.audit = { resourceType: 'webhooks', resourceId: resource.id };
        return testSend(s, resource);
      },
    }),

    // Environment-scoped subscriptions.
    route<unknown, { limit: number; offset: number }>({
      method: 'GET', path: '/api/environments/{envId}/webhooks', operationId: 'listWebhookSubscriptions', tag: 'webhooks',
      access: 'viewer', summary: 'Webhook subscriptions of an environment', load: env, query: paginationQuery,
      response: listOf(subscriptionSchemas.read),
      async handler(_ctx, { query, params }) {
        const page = await s.webhookSubscriptions.page({ environmentId: params.envId }, query);
        return { ...page, items: page.items.map(toSubscription) };
      },
    }),

    route<Row>({
      method: 'POST', path: '/api/environments/{envId}/webhooks', operationId: 'createWebhookSubscription', tag: 'webhooks',
      access: 'operator', summary: 'Subscribe a URL to this environment\'s events', load: env, body: subscriptionSchemas.create,
      readOnly: subscriptionSchemas.readOnly, status: 201, response: subscriptionSchemas.read,
      async handler(ctx, { body, params }) {
        await s.outgoing.validate(body.url, 'url');
        const row = await s.webhookSubscriptions.insert({ ...columns(s, body), environmentId: params.envId });
        ctx.state.audit = { resourceType: 'webhook-subscriptions', resourceId: row.id, environmentId: params.envId };
        auditFields(ctx, body);
        return toSubscription(row);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'GET', path: '/api/webhook-subscriptions/{id}', operationId: 'getWebhookSubscription', tag: 'webhooks',
      access: 'viewer', summary: 'One webhook subscription', load: loadSubscriptionFor, response: subscriptionSchemas.read,
      handler: async (_ctx, { resource }) => toSubscription(resource),
    }),

    route<Row, unknown, Row>({
      method: 'PATCH', path: '/api/webhook-subscriptions/{id}', operationId: 'updateWebhookSubscription', tag: 'webhooks',
      access: 'operator', summary: 'Change a subscription; secret null removes it', load: loadSubscriptionFor,
      body: subscriptionSchemas.update, readOnly: subscriptionSchemas.readOnly, response: subscriptionSchemas.read,
      async handler(ctx, { resource, body }) {
        if (body.url !== undefined) await s.outgoing.validate(body.url, 'url');
        const row = await s.webhookSubscriptions.update(resource.id, columns(s, body, resource));
        ctx.state.audit = { resourceType: 'webhook-subscriptions', resourceId: row.id, environmentId: row.environmentId };
        auditFields(ctx, body);
        return toSubscription(row);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'POST', path: '/api/webhook-subscriptions/{id}/test', operationId: 'testWebhookSubscription', tag: 'webhooks',
      access: 'operator', summary: "Send {event: 'test'} now: 200 {delivered, status} on 2xx, else 502 with the receiver's status",
      load: loadSubscriptionFor, errors: [502], response: object({ delivered: bool, status: int() }),
      async handler(ctx, { resource }) {
        ctx.state.audit = { resourceType: 'webhook-subscriptions', resourceId: resource.id, environmentId: resource.environmentId };
        return testSend(s, resource);
      },
    }),

    route<unknown, unknown, Row>({
      method: 'DELETE', path: '/api/webhook-subscriptions/{id}', operationId: 'deleteWebhookSubscription', tag: 'webhooks',
      access: 'operator', summary: 'Delete a subscription with its delivery history', load: loadSubscriptionFor, status: 204,
      async handler(ctx, { resource }) {
        await s.webhookSubscriptions.delete(resource.id);
        ctx.state.audit = { resourceType: 'webhook-subscriptions', resourceId: resource.id, environmentId: resource.environmentId };
        return undefined;
      },
    }),

    route<unknown, { limit: number; offset: number; status?: string }, Row>({
      method: 'GET', path: '/api/admin/webhooks/{id}/deliveries', operationId: 'listOutgoingWebhookDeliveries', tag: 'webhooks',
      access: 'admin', summary: 'Delivery history of an outgoing webhook, newest first', load: loadWebhook,
      query: { ...paginationQuery, status: enumOf('pending', 'delivering', 'succeeded', 'failed', 'cancelled') },
      response: listOf(deliveryRead),
      handler: async (_ctx, { resource, query }) => deliveriesOf(s.outgoingWebhooks, resource.id, query),
    }),

    route<unknown, { limit: number; offset: number; status?: string }, Row>({
      method: 'GET', path: '/api/webhook-subscriptions/{id}/deliveries', operationId: 'listWebhookDeliveries', tag: 'webhooks',
      access: 'viewer', summary: 'Delivery history of a subscription, newest first', load: loadSubscriptionFor,
      query: { ...paginationQuery, status: enumOf('pending', 'delivering', 'succeeded', 'failed', 'cancelled') },
      response: listOf(deliveryRead),
      handler: async (_ctx, { resource, query }) => deliveriesOf(s.webhookSubscriptions, resource.id, query),
    }),
  ];
}
