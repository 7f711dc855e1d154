// Status shown as words, never as colour alone: Ready / Degraded / Drifted / Progressing and why.
export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

const isTrue = (cs: Condition[] | undefined, type: string) => cs?.find((c) => c.type === type && c.status === 'True');

/** The condition that says the most: Degraded before Drifted before Progressing before Ready. */
export function summarize(conditions: Condition[] | undefined): { label: string; tone: string; reason?: string } {
  for (const [type, tone] of [['Degraded', 'bad'], ['Drifted', 'warn'], ['Progressing', 'info']] as const) {
    const c = isTrue(conditions, type);
    if (c) return { label: type, tone, reason: [c.reason, c.message].filter(Boolean).join(': ') };
  }
  if (isTrue(conditions, 'Ready')) return { label: 'Ready', tone: 'good' };
  const ready = conditions?.find((c) => c.type === 'Ready');
  return { label: ready ? 'Not ready' : 'Unknown', tone: 'muted', reason: ready ? [ready.reason, ready.message].filter(Boolean).join(': ') : undefined };
}

export function ConditionBadge({ conditions }: { conditions: Condition[] | undefined }) {
  const s = summarize(conditions);
  return (
    <span class="status">
      <span class={`badge ${s.tone}`}>{s.label}</span>
      {s.reason && <span class="reason">{s.reason}</span>}
    </span>
  );
}

const HEALTH_TONE: Record<string, string> = { healthy: 'good', unhealthy: 'bad', unreachable: 'bad', degraded: 'warn' };

export function HealthBadge({ status }: { status: string | null | undefined }) {
  return <span class={`badge ${HEALTH_TONE[status ?? ''] ?? 'muted'}`}>{status ?? 'unknown'}</span>;
}

const PLAN_TONE: Record<string, string> = { succeeded: 'good', failed: 'bad', rolled_back: 'bad', cancelled: 'muted', running: 'info', pending: 'muted', rolling_back: 'warn' };

export function PlanStatus({ status }: { status: string }) {
  return <span class={`badge ${PLAN_TONE[status] ?? 'muted'}`} data-plan-status={status}>{status.replace('_', ' ')}</span>;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return <p role="alert" class="error">{error instanceof Error ? error.message : String(error)}</p>;
}

import { formatDate } from './values';

/** A timestamp in ISO 8601 order and 24-hour time (the browser's local time), or a dash. */
export const when = (t: string | null | undefined) => (t ? formatDate(t) : '—');
