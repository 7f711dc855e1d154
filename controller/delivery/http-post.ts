import { AppError } from '../errors/app-error.js';
import { signBody } from '../crypto/webhook-hmac.js';
import { isOutgoingRefused, type OutgoingGuard, type OutgoingRefused } from '../net/outgoing-guard.js';

export const USER_AGENT = 'Service-Webhook/1.0';

export interface PostOutcome {
  ok: boolean;
  /** The receiver's HTTP status; null when no answer came (network error, timeout). */
  status: number | null;
  /** Why it failed, without the URL (it may carry a credential) or any secret. */
  error: string | null;
  durationMs: number;
}

/** Headers of an outgoing webhook request: custom ones first, then the spec's, which win. */
export function webhookHeaders(body: string, secret: string | null, custom: Record<string, string> = {}, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(custom)) headers[k.toLowerCase()] = v;
  headers['content-type'] = 'application/json';
  headers['user-agent'] = USER_AGENT;
  for (const [k, v] of Object.entries(extra)) headers[k.toLowerCase()] = v;
  if (secret) headers['x-webhook-signature'] = signBody(secret, body);
  else delete headers['x-webhook-signature'];
  return headers;
}

/** What a request with no HTTP answer says: one message for every connection-level failure. */
export const UNREACHABLE = 'the receiver is unreachable';

/**
 * POSTs a JSON body once through the outgoing guard: 2xx is success, anything else (status,
 * network error, timeout, a destination the guard refuses) is not. A redirect is not followed
 * (its 3xx is the answer). `error` never tells a refused port from a reset or a non-HTTP one.
 */
export async function postOnce(guard: OutgoingGuard, url: string, body: string, headers: Record<string, string>, timeoutMs: number, cancel?: AbortSignal): Promise<PostOutcome> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const res = await guard.fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: cancel ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]) : AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `receiver answered ${res.status}`, durationMs: took() };
  } catch (e) {
    const err = e as Error;
    const error = cancel?.aborted ? 'cancelled: the service is stopping'
      : isOutgoingRefused(e) ? (e as OutgoingRefused).message
        : err.name === 'TimeoutError' || err.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : UNREACHABLE;
    return { ok: false, status: null, error, durationMs: took() };
  }
}

/**
 * A target's test: one POST now, `{delivered, status}` on 2xx, else 502 naming the status it
 * answered. With no answer, the message is the guard's refusal or one sentence for every
 * connection-level failure (refused, reset, not HTTP, silent): a test never tells ports apart.
 */
export async function sendTest(guard: OutgoingGuard, what: string, url: string, body: string, headers: Record<string, string>, timeoutMs: number, hint: string) {
  const out = await postOnce(guard, url, body, headers, timeoutMs);
  if (out.ok) return { delivered: true as const, status: out.status! };
  const message = out.status !== null ? `The ${what} answered ${out.status}`
    : out.error?.startsWith('refused:') ? `The ${what} was not contacted: ${out.error}` : `The ${what} is unreachable`;
  throw new AppError('SERVICE_UNAVAILABLE', message, { status: 502, hint, details: { receiverStatus: out.status } });
}
