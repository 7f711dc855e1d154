import crypto from 'node:crypto';

export const USER_AGENT = 'Service-Webhook/1.0';

/** `sha256=<hex>` HMAC-SHA256 of the exact body bytes under the secret. */
export const signBody = (secret: string, body: string | Buffer) =>
  'sha256=' + crypto.createHmac('sha256', secret).update(body).digest('hex');

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

/** POSTs a JSON body once: 2xx is success, anything else (status, network error, timeout) is not. */
export async function postOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number, cancel?: AbortSignal): Promise<PostOutcome> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: cancel ? AbortSignal.any([AbortSignal.timeout(timeoutMs), cancel]) : AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `receiver answered ${res.status}`, durationMs: took() };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    const error = cancel?.aborted ? 'cancelled: the service is stopping'
      : err.name === 'TimeoutError' || err.name === 'AbortError' ? `no answer within ${timeoutMs} ms` : `request failed: ${err.cause?.code ?? err.name}`;
    return { ok: false, status: null, error, durationMs: took() };
  }
}
