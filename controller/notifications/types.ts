/**
 * The one list of notification type codes. An event published on the bus whose type is one of
 * these codes becomes in-app notifications, emails, chat messages and outgoing webhook deliveries.
 */
export type Severity = 'info' | 'warning' | 'error';
export type Category = 'deployment' | 'health' | 'backup' | 'job' | 'drift' | 'image' | 'webhook' | 'manifests' | 'certificate' | 'system';

export interface NotificationType {
  code: string;
  category: Category;
  defaultSeverity: Severity;
  /**
   * For an alert type (health.failed): how many consecutive failed checks of the same check are
   * needed before it is down and one notification is sent (controller/monitoring/alert-machine.ts
   * applies it where the checks run, so every event of the type is sent). 1 for the others.
   */
  bounceThreshold: number;
  /** Alert types: consecutive successful checks before a down check is up again (one recovery notice). */
  recoverThreshold?: number;
  /** Alert types: seconds between reminders while a check stays down; 0 sends none. */
  reminderIntervalSec?: number;
  title: string;
}

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  { code: 'deployment.started', category: 'deployment', defaultSeverity: 'info', bounceThreshold: 1, title: 'Deployment started' },
  { code: 'deployment.success', category: 'deployment', defaultSeverity: 'info', bounceThreshold: 1, title: 'Deployment succeeded' },
  { code: 'deployment.failed', category: 'deployment', defaultSeverity: 'error', bounceThreshold: 1, title: 'Deployment failed' },
  { code: 'deployment.wave_started', category: 'deployment', defaultSeverity: 'info', bounceThreshold: 1, title: 'Rollout wave started' },
  { code: 'deployment.analysis_failed', category: 'deployment', defaultSeverity: 'error', bounceThreshold: 1, title: 'Rollout analysis failed' },
  { code: 'plan.rolled_back', category: 'deployment', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Deployment plan rolled back' },
  { code: 'deployment.crash_looping', category: 'deployment', defaultSeverity: 'error', bounceThreshold: 1, title: 'Container crash-looping' },
  {
    code: 'health.failed', category: 'health', defaultSeverity: 'error', bounceThreshold: 2, recoverThreshold: 1, reminderIntervalSec: 3600,
    title: 'Health check failed',
  },
  { code: 'health.recovered', category: 'health', defaultSeverity: 'info', bounceThreshold: 1, title: 'Health recovered' },
  { code: 'backup.success', category: 'backup', defaultSeverity: 'info', bounceThreshold: 1, title: 'Backup completed' },
  { code: 'backup.failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Backup failed' },
  { code: 'backup.drill_failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Restore drill failed' },
  { code: 'backup.restore_failed', category: 'backup', defaultSeverity: 'error', bounceThreshold: 1, title: 'Restore failed' },
  // a scheduled job's run that failed: its exit code, a start refused or failed (reconcilers/job/)
  { code: 'job.failed', category: 'job', defaultSeverity: 'error', bounceThreshold: 1, title: 'Scheduled job failed' },
  { code: 'drift.detected', category: 'drift', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Configuration drift detected' },
  { code: 'image.update_available', category: 'image', defaultSeverity: 'info', bounceThreshold: 1, title: 'Image update available' },
  { code: 'webhook.failed', category: 'webhook', defaultSeverity: 'warning', bounceThreshold: 1, title: 'Webhook delivery failed' },
  // an environment's Git source (controller/manifests/git/sync-source.ts): a commit applied, or a fetch or commit that failed
  { code: 'manifests.synced', category: 'manifests', defaultSeverity: 'info', bounceThreshold: 1, title: 'Manifests synced from Git' },
  { code: 'manifests.sync_failed', category: 'manifests', defaultSeverity: 'error', bounceThreshold: 1, title: 'Manifests sync from Git failed' },
  // an ACME order for a host's certificate (reconcilers/certificate/): the first failure of a run, the previous certificate kept
  { code: 'certificate.failed', category: 'certificate', defaultSeverity: 'error', bounceThreshold: 1, title: 'Certificate order failed' },
];

const BY_CODE = new Map(NOTIFICATION_TYPES.map((t) => [t.code, t]));
export const NOTIFICATION_CODES = NOTIFICATION_TYPES.map((t) => t.code);
export const CATEGORIES: Category[] = [...new Set(NOTIFICATION_TYPES.map((t) => t.category))];

export const notificationType = (code: string): NotificationType | undefined => BY_CODE.get(code);
export const isNotificationType = (code: string): boolean => BY_CODE.has(code);

/** Alert types carry a recover threshold: the monitoring checks step their alert state machine by them. */
export const isAlertType = (t: NotificationType): boolean => t.recoverThreshold !== undefined;

/** A short human line for a notification from its event data (names only, never secret values). */
export function describe(t: NotificationType, data: Record<string, unknown>): string {
  if (typeof data.message === 'string' && data.message) return data.message.slice(0, 1000);
  const parts = ['jobName', 'serviceName', 'planName', 'serverName', 'databaseName', 'imageName', 'imageTag', 'webhookName']
    .filter((k) => typeof data[k] === 'string' || typeof data[k] === 'number')
    .map((k) => `${k.replace(/Name$/, '')}: ${String(data[k])}`);
  return parts.length ? `${t.title} (${parts.join(', ')})` : t.title;
}
