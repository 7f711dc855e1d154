import crypto from 'node:crypto';
import os from 'node:os';
import { AppError, conflict } from '../errors/app-error.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Logger } from '../logger.js';
import { isOutgoingRefused, type OutgoingGuard } from '../net/outgoing-guard.js';
import type { SystemSettingsRepository } from '../store/repositories/system-settings.js';
import { VERSION } from '../version.js';
import { parseDsn, type SentryDsn } from './sentry-dsn.js';

const SEND_TIMEOUT_MS = 10_000;

export interface ErrorTrackingTest { at: string; ok: boolean; status: number | null; eventId: string; message: string }

export interface ErrorTrackingStatus {
  configured: boolean;
  enabled: boolean;
  /** Where events go, without the key. */
  endpoint: string | null;
  projectId: string | null;
  environment: string | null;
  lastTest: ErrorTrackingTest | null;
}

interface Outcome { ok: boolean; status: number | null; message: string }

/**
 * Error tracking to a Sentry-compatible service: the DSN is an admin setting (sealed at rest,
 * never returned), the test sends one event, and unexpected API failures (500s) are reported
 * while it is enabled. Reports carry the error's name, message and stack, never request bodies.
 */
export class ErrorTracking {
  constructor(
    private readonly store: SystemSettingsRepository<unknown>,
    private readonly secretBox: SecretBox,
    private readonly logger: Logger,
    private readonly outgoing: OutgoingGuard,
  ) {}

  private async current(): Promise<{ dsn: SentryDsn | null; enabled: boolean; environment: string | null; lastTest: ErrorTrackingTest | null }> {
    const row = await this.store.errorTracking();
    const dsn = row.errorTrackingDsnEnc ? parseDsn(this.secretBox.open(row.errorTrackingDsnEnc)) : null;
    return { dsn, enabled: row.errorTrackingEnabled, environment: row.errorTrackingEnvironment, lastTest: row.errorTrackingLastTest as ErrorTrackingTest | null };
  }

  async status(): Promise<ErrorTrackingStatus> {
    const c = await this.current();
    return {
      configured: !!c.dsn, enabled: !!c.dsn && c.enabled, endpoint: c.dsn?.origin ?? null, projectId: c.dsn?.projectId ?? null,
      environment: c.environment, lastTest: c.lastTest,
    };
  }

  /** dsn: a new DSN, null to remove it, undefined to keep it. */
  async configure(changes: { dsn?: string | null; enabled?: boolean; environment?: string | null }): Promise<ErrorTrackingStatus> {
    if (changes.dsn) await this.outgoing.validate(parseDsn(changes.dsn).envelopeUrl, 'dsn');
    await this.store.setErrorTracking({
      ...(changes.dsn !== undefined && { errorTrackingDsnEnc: this.secretBox.sealOrNull(changes.dsn), errorTrackingLastTest: null }),
      ...(changes.enabled !== undefined && { errorTrackingEnabled: changes.enabled }),
      ...(changes.environment !== undefined && { errorTrackingEnvironment: changes.environment }),
    });
    return this.status();
  }

  /** Sends one info event; stores and answers the outcome. 409 without a DSN. */
  async test(actor: string): Promise<ErrorTrackingTest> {
    const c = await this.current();
    if (!c.dsn) throw conflict('No error-tracking DSN is set', 'PUT /api/admin/error-tracking {dsn} first');
    const eventId = crypto.randomUUID().replace(/-/g, '');
    const out = await this.send(c.dsn, eventId, {
      level: 'info', message: { formatted: `Stevedore error-tracking test event, sent by ${actor}` }, tags: { test: 'true' },
    }, c.environment);
    const test: ErrorTrackingTest = { at: new Date().toISOString(), ok: out.ok, status: out.status, eventId, message: out.message };
    await this.store.setErrorTracking({ errorTrackingLastTest: test as unknown as Record<string, unknown> });
    return test;
  }

  /** Reports an unexpected failure when tracking is on; never throws, never waits for the tracker. */
  capture(err: unknown, context: { requestId?: string; route?: string } = {}): void {
    void (async () => {
      const c = await this.current();
      if (!c.dsn || !c.enabled) return;
      const e = err instanceof Error ? err : new Error(String(err));
      const eventId = crypto.randomUUID().replace(/-/g, '');
      const out = await this.send(c.dsn, eventId, {
        level: 'error',
        exception: { values: [{ type: e.name, value: e.message, stacktrace: { frames: stackFrames(e.stack) } }] },
        tags: { ...(context.route && { route: context.route }), ...(context.requestId && { requestId: context.requestId }) },
      }, c.environment);
      if (!out.ok) this.logger.warn('error tracking: report not accepted', { status: out.status, message: out.message });
    })().catch((e) => this.logger.warn('error tracking: report failed', { error: e instanceof Error ? e.message : String(e) }));
  }

  /** POSTs one event as a Sentry envelope to the DSN's envelope endpoint. */
  private async send(dsn: SentryDsn, eventId: string, event: Record<string, unknown>, environment: string | null): Promise<Outcome> {
    const sentAt = new Date().toISOString();
    const payload = {
      event_id: eventId, timestamp: sentAt, platform: 'node', release: `stevedore@${VERSION}`, server_name: os.hostname(),
      ...(environment && { environment }), ...event,
    };
    const body = [
      JSON.stringify({ event_id: eventId, sent_at: sentAt }),
      JSON.stringify({ type: 'event', content_type: 'application/json' }),
      JSON.stringify(payload),
    ].join('\n') + '\n';
    try {
      const res = await this.outgoing.fetch(dsn.envelopeUrl, {
        method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(SEND_TIMEOUT_MS), body,
        headers: {
          'content-type': 'application/x-sentry-envelope',
          'x-sentry-auth': `Sentry sentry_version=7, sentry_key=${dsn.publicKey}, sentry_client=stevedore/${VERSION}`,
        },
      });
      await res.body?.cancel().catch(() => {});
      const ok = res.status >= 200 && res.status < 300;
      return { ok, status: res.status, message: ok ? 'the tracker accepted the event' : `the tracker answered ${res.status}` };
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      const why = isOutgoingRefused(e) ? err.message
        : err.name === 'TimeoutError' ? `no answer within ${SEND_TIMEOUT_MS} ms` : `request failed: ${err.cause?.code ?? err.name}`;
      return { ok: false, status: null, message: why };
    }
  }
}

/** Stack lines as Sentry frames, innermost last (Sentry's order). */
function stackFrames(stack: string | undefined) {
  const frames = (stack ?? '').split('\n').slice(1).map((line) => {
    const m = /at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/.exec(line.trim());
    return m ? { function: m[1] ?? '?', filename: m[2], lineno: Number(m[3]), colno: Number(m[4]) } : null;
  }).filter((f) => f !== null);
  return frames.reverse();
}

/** The error a failed test answers: 502 with what the tracker said (as the webhook test does). */
export const trackerRefused = (t: ErrorTrackingTest) =>
  new AppError('SERVICE_UNAVAILABLE', `The error tracker did not accept the test event: ${t.message}`, { status: 502, details: { eventId: t.eventId } });
