/**
 * The one list of notification type codes. An event published on the bus whose type is one of
 * these codes becomes in-app notifications, emails, chat messages and outgoing webhook deliveries.
 */
export type Severity = 'info' | 'warning' | 'error';
export type Category = 'deployment' | 'health' | 'backup' | 'drift' | 'image' | 'webhook' | 'system';

export interface NotificationType {
  code: string;
  category: Category;
  defaultSeverity: Severity;
  /**
   * How many consecutive occurrences for the same subject (environment + service/server/...) are
   * needed before anything is sent: 1 sends every occurrence; 3 waits for the third in a row.
   * The type named by `resets` (e.g. health.recovered for health.failed) starts the count over.
   */
  bounceThreshold: number;
  /** The type whose occurrence resets this type's bounce count. */
  resetBy?: string;
  title: string;
}

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  { code: 'deployment.started', category: 'deployment', defaultSeverity: 'info', bounceThreshold: 1, title: 'Deployment started' },
  { code: 'deployment.success', category: 'deployment', defaultSeverity: 'info', bounceThreshold: 1, title: 'Deployment succeeded' },
  { code: 'deployment.failed', category: 'deployment', defaultSeverity: 'error', bounceThreshold: 1, title: 'Deployment failed' },
  { code: 'plan.rolled_back', category: 'deployment', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Deployment plan rolled back' },
  { code: 'health.failed', category: 'health', defaultSeverity: 'error', bounceThreshold: 2, resetBy: 'health.recovered', title: 'Health check failed' },
  { code: 'health.recovered', category: 'health', defaultSeverity: 'info', bounceThreshold: 1, title: 'Health recovered' },
  { code: 'backup.success', category: 'backup', defaultSeverity: 'info', bounceThreshold: 1, title: 'Backup completed' },
  { code: 'backup.failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Backup failed' },
  { code: 'backup.drill_failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Restore drill failed' },
  { code: 'backup.restore_failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Restore failed' },
  { code: 'drift.detected', category: 'drift', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Configuration drift detected' },
  { code: 'image.update_available', category: 'image', defaultSeverity: 'info', bounceThreshold: 1, title: 'Image update available' },
  { code: 'webhook.failed', category: 'webhook', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Webhook delivery failed' },
];

const BY_CODE = new Map(NOTIFICATION_TYPES.map((t) => [t.code, t]));
export const NOTIFICATION_CODES = NOTIFICATION_TYPES.map((t) => t.code);
export const CATEGORIES: Category[] = [...new Set(NOTIFICATION_TYPES.map((t) => t.category))];

export const notificationType = (code: string): NotificationType | undefined => BY_CODE.get(code);
export const isNotificationType = (code: string): boolean => BY_CODE.has(code);

/** Types whose bounce count an occurrence of `code` resets. */
export const typesResetBy = (code: string): string[] =>
  NOTIFICATION_TYPES.filter((t) => t.resetBy === code).map((t) => t.code);

/** What identifies "the same thing" for bounce counting: the first id-like field of the data. */
export function bounceSubject(environmentId: string | null, data: Record<string, unknown>): string {
  const id = ['subject', 'deploymentId', 'serviceId', 'serverId', 'databaseId', 'imageId', 'webhookId']
    .map((k) => data[k]).find((v) => typeof v === 'string' && v);
  return `${environmentId ?? '-'}:${id ?? '-'}`;
}

/** A short human line for a notification from its event data (names only, never secret values). */
export function describe(t: NotificationType, data: Record<string, unknown>): string {
  if (typeof data.message === 'string' && data.message) return data.message.slice(0, 1000);
  const parts = ['serviceName', 'planName', 'serverName', 'databaseName', 'imageName', 'imageTag', 'webhookName']
    .filter((k) => typeof data[k] === 'string' || typeof data[k] === 'number')
    .map((k) => `${k.replace(/Name$/, '')}: ${String(data[k])}`);
  return parts.length ? `${t.title} (${parts.join(', ')})` : t.title;
}
