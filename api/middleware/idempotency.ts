import { AppError, validationError } from '../../controller/errors/app-error.js';
import type { SecretBox } from '../../controller/crypto/secret-box.js';
import type { IdempotencyKeysRepository } from '../../controller/store/repositories/idempotency-keys.js';
import type { Actor, Ctx } from '../http/types.js';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETENTION_MS = 24 * 3600_000;
// A "running" row older than this belongs to a request that died with its process.
const ABANDONED_MS = 10 * 60_000;

/**
 * Idempotency-Key: the same key from the same caller with the same method, path and body within
 * 24 h replays the stored answer; a different request is IDEMPOTENCY_KEY_REUSED; a repeat while
 * the first still runs is CONFLICT. Only answers below 400 are stored, so a failure can be retried.
 */
export function idempotency(keys: IdempotencyKeysRepository, secretBox: SecretBox) {
  // Stored answers are sealed: some hold a value shown once (a new API token's secret).
  const seal = (body: unknown) => JSON.stringify({ sealed: secretBox.seal(JSON.stringify(body ?? null)) });
  const open = (stored: unknown) => {
    const sealed = (stored as { sealed?: unknown } | null)?.sealed;
    return typeof sealed === 'string' ? JSON.parse(secretBox.open(sealed)) : stored;
  };
  let lastSweep = 0;
  // not async: reads (no write method) pass through without a promise of their own
  return function idempotencyMiddleware(ctx: Ctx, next: () => Promise<unknown>) {
    if (!WRITE.has(ctx.method)) return next();
    const key = ctx.get('Idempotency-Key');
    const actor = ctx.state.actor;
    if (!key || !actor) return next();
    return managed(ctx, next, key, actor);
  };
  async function managed(ctx: Ctx, next: () => Promise<unknown>, key: string, actor: Actor) {
    if (key.length > 255) throw validationError('Idempotency-Key must be at most 255 characters', 'Idempotency-Key');
    if (Date.now() - lastSweep > 600_000) {
      lastSweep = Date.now();
      await keys.forgetOlderThan(new Date(Date.now() - RETENTION_MS));
    }
    const caller = `${actor.type}:${actor.id}`;
    // keyed: the body may hold a secret value, and a plain hash would let a database reader test guesses
    const requestHash = secretBox.fingerprint(`${ctx.method}\n${ctx.url}\n${ctx.request.rawBody?.toString('base64') ?? ''}`);
    const fresh = { caller, key, method: ctx.method, path: ctx.path, requestHash };
    let claimed = await keys.claim(fresh);
    if (!claimed) {
      const prior = (await keys.find(caller, key))!;
      const age = Date.now() - new Date(prior.createdAt).getTime();
      if (age > RETENTION_MS || (prior.state === 'running' && age > ABANDONED_MS)) {
        await keys.release(caller, key);
        claimed = await keys.claim(fresh);
      }
      if (!claimed) {
        if (prior.method !== ctx.method || prior.path !== ctx.path || prior.requestHash !== requestHash) {
          throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used for a different request',
            { field: 'Idempotency-Key', hint: 'Use a new key for a new request' });
        }
        if (prior.state === 'running') throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still running');
        ctx.status = prior.statusCode ?? 200;
        ctx.body = open(prior.responseBody);
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
    }
    try {
      await next();
    } catch (e) {
      await keys.release(caller, key);
      throw e;
    }
    if (ctx.status >= 400 || (ctx.body && typeof (ctx.body as { pipe?: unknown }).pipe === 'function')) {
      await keys.release(caller, key);
      return;
    }
    await keys.complete(caller, key, { statusCode: ctx.status, responseBody: seal(ctx.body) });
  }
}
