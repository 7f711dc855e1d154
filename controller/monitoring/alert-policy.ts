// The alert policy of a notification type: the catalogue's defaults (notifications/types.ts) with
// the admin's overrides (PATCH /api/admin/notification-types/{code}) on top.
import { NOTIFICATION_TYPES, type NotificationType } from '../notifications/types.js';
import type { NotificationTypeSettingsRepository } from '../store/repositories/notification-type-settings.js';
import type { AlertPolicy } from './alert-machine.js';

export const ALERT_TYPE = 'health.failed';
export const RECOVERED_TYPE = 'health.recovered';

/** Every notification type with its overrides applied. */
export async function effectiveTypes(store: NotificationTypeSettingsRepository): Promise<NotificationType[]> {
  const overrides = new Map((await store.all()).map((o) => [o.code, o]));
  return NOTIFICATION_TYPES.map((t) => {
    const o = overrides.get(t.code);
    if (!o || t.recoverThreshold === undefined) return t;
    return {
      ...t,
      bounceThreshold: o.bounceThreshold ?? t.bounceThreshold,
      recoverThreshold: o.recoverThreshold ?? t.recoverThreshold,
      reminderIntervalSec: o.reminderIntervalSec ?? t.reminderIntervalSec,
    };
  });
}

export async function alertPolicy(store: NotificationTypeSettingsRepository): Promise<AlertPolicy> {
  const t = (await effectiveTypes(store)).find((x) => x.code === ALERT_TYPE)!;
  return { failuresBeforeDown: t.bounceThreshold, successesBeforeUp: t.recoverThreshold ?? 1, reminderIntervalSec: t.reminderIntervalSec ?? 0 };
}
