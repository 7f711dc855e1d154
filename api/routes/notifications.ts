import { maySee } from '../../controller/auth/policy.js';
import type { Services } from '../../controller/services.js';
import { forbiddenScope, notFound, validationError } from '../../controller/errors/app-error.js';
import { CATEGORIES, NOTIFICATION_CODES, NOTIFICATION_TYPES, isAlertType, notificationType, type NotificationType } from '../../controller/notifications/types.js';
import { effectiveTypes } from '../../controller/monitoring/alert-policy.js';
import { defaultPreference, toNotification } from '../../controller/delivery/fanout.js';
import type { StreamEvent } from '../../controller/events/event-bus.js';
import { route } from '../http/route.js';
import { lastEventIdOf, openSse, SSE_ANSWER } from '../http/sse.js';
import { arrayOf, bool, enumOf, int, listOf, nullable, nullableTimestamp, object, paginationQuery, str, timestamp, uuid } from '../http/schema.js';
import type { Ctx } from '../http/types.js';

const notificationRead = object({
  id: uuid, type: str(), category: str(), severity: enumOf('info', 'warning', 'error'), environmentId: nullable(uuid),
  title: str(), message: str(), data: { type: 'object' }, read: bool, readAt: nullableTimestamp, createdAt: timestamp,
});
const typeRead = object({
  code: str(), category: str(), defaultSeverity: str(), bounceThreshold: int(1), recoverThreshold: int(1), reminderIntervalSec: int(0), title: str(),
});
/** What the catalogue shows of a type: alert types carry their policy, the others 1 / 1 / 0 (every occurrence is sent). */
const toType = (t: NotificationType) => ({
  code: t.code, category: t.category, defaultSeverity: t.defaultSeverity, bounceThreshold: t.bounceThreshold,
  recoverThreshold: t.recoverThreshold ?? 1, reminderIntervalSec: t.reminderIntervalSec ?? 0, title: t.title,
});
const preferenceRead = object({ type: str(), category: str(), inApp: bool, email: bool });

/** The SSE names of the general stream (DECISIONS.md, Streams). */
export const STREAM_EVENTS = new Set(['plan.updated', 'plan.step', 'deployment.updated', 'health.changed', 'drift.changed', 'notification.created',
  // a check's alert going down (or a reminder) and its recovery: names and ids, as the fan-out sends them
  'health.failed', 'health.recovered']);

/** In-app notifications belong to users; a service account has none. */
const userIdOf = (ctx: Ctx) => (ctx.state.actor?.type === 'user' ? ctx.state.actor.id : null);

export default function notificationRoutes(s: Services) {
  const preferencesOf = async (userId: string | null) => {
    const rows = userId ? await s.notifications.preferencesOf(userId) : [];
    const by = new Map(rows.map((r: { type: string }) => [r.type, r]));
    return NOTIFICATION_TYPES.map((t) => {
      const p = (by.get(t.code) as { inApp: boolean; email: boolean } | undefined) ?? defaultPreference(t);
      return { type: t.code, category: t.category, inApp: p.inApp, email: p.email };
    });
  };

  return [
    route({
      method: 'GET', path: '/api/admin/notification-types', operationId: 'listNotificationTypes', tag: 'notifications',
      access: 'admin', summary: 'The notification type catalogue: code, category, default severity, and for alert types (health.failed) '
        + 'the alert policy: consecutive failures before down (bounceThreshold), successes before up, reminder interval while down',
      response: object({ items: arrayOf(typeRead) }),
      handler: async () => ({ items: (await effectiveTypes(s.notificationTypeSettings)).map(toType) }),
    }),

    route<{ bounceThreshold?: number; recoverThreshold?: number; reminderIntervalSec?: number }>({
      method: 'PATCH', path: '/api/admin/notification-types/{code}', operationId: 'updateNotificationType', tag: 'notifications',
      access: 'admin', summary: 'Change the alert policy of an alert type (health.failed): bounceThreshold (consecutive failed checks before '
        + 'down), recoverThreshold (successes before up), reminderIntervalSec (0: no reminders). 400 for a type that is not an alert type',
      body: object({ bounceThreshold: int(1, 100), recoverThreshold: int(1, 100), reminderIntervalSec: int(0, 604_800) }, [], { minProperties: 1 }),
      response: typeRead, errors: [404],
      async handler(ctx, { body }) {
        const code = String(ctx.params.code);
        const t = notificationType(code);
        if (!t) throw notFound('Notification type');
        if (!isAlertType(t)) throw validationError(`${code} is sent on every occurrence: only alert types have a policy`, 'code');
        const current = (await effectiveTypes(s.notificationTypeSettings)).find((x) => x.code === code)!;
        await s.notificationTypeSettings.upsert({
          code, bounceThreshold: body.bounceThreshold ?? current.bounceThreshold,
          recoverThreshold: body.recoverThreshold ?? current.recoverThreshold ?? 1,
          reminderIntervalSec: body.reminderIntervalSec ?? current.reminderIntervalSec ?? 0,
        });
        ctx.state.audit = { details: { code, ...body } };
        return toType((await effectiveTypes(s.notificationTypeSettings)).find((x) => x.code === code)!);
      },
    }),

    route<unknown, { limit: number; offset: number; unreadOnly?: boolean; environmentId?: string; category?: string }>({
      method: 'GET', path: '/api/notifications', operationId: 'listNotifications', tag: 'notifications', access: 'viewer',
      summary: 'Notifications of the current user, newest first',
      query: { ...paginationQuery, unreadOnly: { type: 'boolean', default: false }, environmentId: uuid, category: enumOf(...CATEGORIES) },
      response: listOf(notificationRead),
      async handler(ctx, { query }) {
        const userId = userIdOf(ctx);
        if (!userId) return { items: [], total: 0, limit: query.limit, offset: query.offset };
        const page = await s.notifications.page(userId, query, query);
        return { ...page, items: page.items.map(toNotification) };
      },
    }),

    route({
      method: 'GET', path: '/api/notifications/unread-count', operationId: 'countUnreadNotifications', tag: 'notifications',
      access: 'viewer', summary: 'How many of the current user\'s notifications are unread', response: object({ count: int(0) }),
      async handler(ctx) {
        const userId = userIdOf(ctx);
        if (!userId) return { count: 0 };
        return { count: await s.notifications.unreadCount(userId) };
      },
    }),

    route({
      method: 'POST', path: '/api/notifications/{id}/read', operationId: 'markNotificationRead', tag: 'notifications',
      access: 'authenticated', audit: false, summary: 'Mark one notification read', response: notificationRead,
      async handler(ctx, { params }) {
        const userId = userIdOf(ctx);
        const row = userId ? await s.notifications.markRead(userId, params.id) : undefined;
        if (!row) throw notFound('Notification');
        return toNotification(row);
      },
    }),

    route({
      method: 'POST', path: '/api/notifications/read-all', operationId: 'markAllNotificationsRead', tag: 'notifications',
      access: 'authenticated', audit: false, summary: 'Mark every notification of the current user read',
      response: object({ updated: int(0) }),
      async handler(ctx) {
        const userId = userIdOf(ctx);
        const updated = userId ? await s.notifications.markAllRead(userId) : 0;
        return { updated };
      },
    }),

    route({
      method: 'GET', path: '/api/notifications/preferences', operationId: 'getNotificationPreferences', tag: 'notifications',
      access: 'viewer', summary: 'The current user\'s channels per notification type (defaults where unset)',
      response: object({ items: arrayOf(preferenceRead) }),
      handler: async (ctx) => ({ items: await preferencesOf(userIdOf(ctx)) }),
    }),

    route<{ preferences: Array<{ type: string; inApp?: boolean; email?: boolean }> }>({
      method: 'PUT', path: '/api/notifications/preferences', operationId: 'updateNotificationPreferences', tag: 'notifications',
      access: 'authenticated', summary: 'Set the current user\'s channels for the types given',
      body: object({
        preferences: arrayOf(object({ type: enumOf(...NOTIFICATION_CODES), inApp: bool, email: bool }, ['type']), { minItems: 1, maxItems: 100 }),
      }, ['preferences']),
      response: object({ items: arrayOf(preferenceRead) }),
      async handler(ctx, { body }) {
        const userId = userIdOf(ctx);
        if (!userId) throw validationError('Only users have notification preferences');
        const current = new Map((await preferencesOf(userId)).map((p) => [p.type, p]));
        const rows = body.preferences.map((p) => {
          const c = current.get(p.type)!;
          return { userId, type: p.type, inApp: p.inApp ?? c.inApp, email: p.email ?? c.email };
        });
        await s.notifications.savePreferences(rows);
        ctx.state.audit = { resourceType: 'notification-preferences', resourceId: userId, details: { types: rows.map((r) => r.type) } };
        return { items: await preferencesOf(userId) };
      },
    }),

    route<unknown, { environmentId?: string }>({
      method: 'GET', path: '/api/events', operationId: 'streamEvents', tag: 'events', access: 'viewer', envExempt: true, ...SSE_ANSWER,
      summary: 'Server-sent events: plan.updated, plan.step, deployment.updated, health.changed, health.failed, health.recovered, drift.changed, notification.created; '
        + 'id for Last-Event-ID resume; a comment heartbeat every 15 s',
      query: { environmentId: uuid, lastEventId: int(0, Number.MAX_SAFE_INTEGER) }, errors: [404], // an unknown environmentId
      async handler(ctx, { query }) {
        const actor = ctx.state.actor!;
        // what the caller may see is the policy's (policy.ts), asked for the filter and for each event
        if (query.environmentId && !maySee(actor, query.environmentId)) {
          throw forbiddenScope('This token is not allowed to access this environment');
        }
        if (query.environmentId && !(await s.environments.findById(query.environmentId))) throw notFound('Environment');
        const userId = userIdOf(ctx);
        const wanted = (e: StreamEvent) => {
          if (!STREAM_EVENTS.has(e.type)) return false;
          if (query.environmentId && e.environmentId !== query.environmentId) return false;
          if (!maySee(actor, e.environmentId)) return false;
          if (e.type === 'notification.created') return userId !== null && e.data.userId === userId;
          return true;
        };
        const dataOf = (e: StreamEvent) =>
          e.type === 'notification.created' ? (e.data.notification ?? {}) : { ...e.data, environmentId: e.environmentId, at: e.createdAt };

        // Subscribe first and buffer, then replay after Last-Event-ID (header, or ?lastEventId=
        // on a first connect), then go live: nothing falls between replay and live.
        const lastId = lastEventIdOf(ctx);
        const sse = openSse(ctx);
        const sent = new Set<number>();
        let replaying = true;
        const buffered: StreamEvent[] = [];
        const send = (e: StreamEvent) => {
          if (e.id <= lastId || sent.has(e.id) || !wanted(e)) return;
          if (replaying || buffered.length) sent.add(e.id);
          sse.send(e.type, dataOf(e), e.id);
        };
        const unsubscribe = s.events.subscribe((e) => (replaying ? buffered.push(e) : send(e)));
        void sse.closed.then(unsubscribe);
        if (lastId > 0) {
          let from = lastId;
          for (;;) {
            const page = await s.events.since(from, query.environmentId ?? null, 500);
            page.forEach(send);
            if (page.length < 500) break;
            from = page[page.length - 1].id;
          }
        }
        buffered.splice(0).forEach(send);
        replaying = false;
        return undefined;
      },
    }),
  ];
}

