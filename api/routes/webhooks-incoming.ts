import getRawBody from 'raw-body';
import type { Services } from '../../controller/services.js';
import { AppError, conflict, isAppError, unauthorized, validationError } from '../../controller/errors/app-error.js';
import { heldBack } from '../../controller/images/held-back.js';
import { judgePushedTag, type PushedVersionVerdict } from '../../controller/images/pushed-version.js';
import { currentTagOf } from '../../reconcilers/image/current-tag.js';
import { verifySignature } from '../../controller/crypto/webhook-hmac.js';
import { ReplayGuard } from '../../controller/webhooks/replay-guard.js';
import { createAutoRollbackPlanForWebhook, deployServiceForWebhook } from '../../reconcilers/deploy-gateway.js';
import { isUuid } from '../../controller/store/repositories/base-repository.js';
import { result, route, type RouteResult } from '../http/route.js';
import { arrayOf, bool, int, nonEmpty, object, str, uuid } from '../http/schema.js';
import { unsupportedContentType } from '../http/content-type.js';
import { validateBody } from '../http/validate.js';
import type { Ctx } from '../http/types.js';

const tag = str({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]*$' });
const deployBody = object({ service: nonEmpty(255), environment: nonEmpty(100), imageTag: tag, generateArtifacts: { type: 'boolean', default: false } }, ['service', 'environment']);
const deployImageBody = object({ imageName: nonEmpty(512), environment: nonEmpty(100), imageTag: tag }, ['imageName', 'environment', 'imageTag']);

/** A deploy that ran and did not converge: the webhook's failure shape (Errors rule 1), not the envelope. */
const deployFailure = object({ error: str(), deploymentId: str(), status: str() }, ['error']);

/** 404 in the envelope, with the spec's message also as `error` (the webhook's failure shape). */
const webhookNotFound = (message: 'Service not found' | 'Environment not found' | 'Container image not found') =>
  new AppError('NOT_FOUND', message, { details: { error: message } });

/** 200: nothing deploys (ping, another event, no service, every service held back); 202: plans started. */
const codehostAnswer = object({
  success: bool, ignored: bool, reason: str(), serviceCount: int(0), plans: arrayOf(object({ environment: str(), planId: uuid, services: arrayOf(str()) })),
  skipped: arrayOf(object({ service: str(), environment: str(), reason: str() })),
}, ['success', 'ignored', 'serviceCount', 'plans']);

interface Signed { raw: Buffer; signature: string; replayKey: string }

/**
 * Verifies the signature before anything else is looked at (runs as the route's `load`):
 * 401 when the secret is unset (fail closed), the header is missing, or the digest differs.
 */
function signed(secretOf: () => string | null, header: string, prefix: '' | 'sha256=') {
  return async (ctx: Ctx): Promise<Signed> => {
    let raw = ctx.request.rawBody;
    let unreadable = false;
    if (raw === undefined) {
      // Not JSON (a code host may send form-encoded payloads): read the bytes here.
      raw = await getRawBody(ctx.req, { limit: '1mb' });
      unreadable = raw.length > 0 && ctx.request.type !== 'application/x-www-form-urlencoded';
      ctx.request.rawBody = raw;
      if (ctx.request.type === 'application/x-www-form-urlencoded') {
        const payload = new URLSearchParams(raw.toString('utf8')).get('payload');
        try {
          ctx.request.body = payload ? JSON.parse(payload) : undefined;
        } catch {
          ctx.request.body = undefined;
        }
      }
    }
    const secret = secretOf();
    if (!secret) throw unauthorized('This webhook endpoint is disabled: its secret is not configured');
    const signature = ctx.get(header);
    if (!signature) throw unauthorized(`The ${header} header is missing`);
    if (!verifySignature(secret, raw, signature, prefix)) throw unauthorized(`The ${header} signature does not match the body`);
    // signed, but neither JSON nor a form's payload field: nothing here would read it
    if (unreadable) throw unsupportedContentType(ctx.request.type, 'application/json (or a form with a payload field)');
    return { raw, signature, replayKey: ReplayGuard.keyOf(ctx.path, signature, raw) };
  };
}

export default function incomingWebhookRoutes(s: Services) {
  const replays = s.webhookReplays;

  /** Runs a deploying handler once per (endpoint, signature, body) within five minutes. */
  async function once(ctx: Ctx, sig: Signed, run: () => Promise<RouteResult & { __result: true }>) {
    const claim = await replays.claim(sig.replayKey);
    if (claim.kind === 'in_progress') throw conflict('This delivery is already being processed', 'Wait for the first delivery to finish');
    if (claim.kind === 'replay') {
      ctx.state.audit = { skip: true };
      return result(claim.status, claim.body, { 'Webhook-Replayed': 'true' });
    }
    try {
      const out = await run();
      await replays.complete(claim.key, out.status ?? 200, out.body);
      // Audited as the webhook (no user or token stands behind a signed delivery).
      const note = ctx.state.audit ?? {};
      await s.audit.record({
        actorType: 'webhook', actorName: ctx.path, action: note.action ?? 'webhook', resourceType: note.resourceType ?? 'webhooks',
        resourceId: note.resourceId ?? null, environmentId: note.environmentId ?? null, details: note.details ?? {},
        requestId: ctx.state.requestId, ip: ctx.state.clientIp,
      });
      ctx.state.audit = { skip: true };
      return out;
    } catch (e) {
      await replays.release(claim.key).catch(() => {});
      throw e;
    }
  }

  const environmentNamed = async (name: string) => {
    const env = await s.environments.findByName(name);
    if (!env) throw webhookNotFound('Environment not found');
    return env;
  };

  return [
    route<unknown, unknown, Signed>({
      method: 'POST', path: '/api/webhooks/deploy', operationId: 'webhookDeploy', tag: 'webhooks', access: 'public',
      summary: 'CI deploy of one service (X-Webhook-Signature: lowercase hex HMAC-SHA256 of the raw body with WEBHOOK_SECRET). '
        + 'Body {service (name or id), environment (name), imageTag?, generateArtifacts?}. A deploy that ran and failed '
        + '(failed or rolled back on the servers) answers 502 {error, deploymentId, status}: the request was valid, the target did not converge.',
      load: signed(() => s.config.webhookSecret, 'x-webhook-signature', ''), errors: [401, 404, 409, 415, 503],
      response: object({ success: bool, deploymentId: str(), status: str() }),
      alsoAnswers: { 502: { description: 'The deploy ran and failed or was rolled back on the servers', response: deployFailure } },
      async handler(ctx, { resource: sig }) {
        const body = validateBody<{ service: string; environment: string; imageTag?: string; generateArtifacts: boolean }>(deployBody, ctx.request.body ?? {});
        const env = await environmentNamed(body.environment);
        const service = (isUuid(body.service) ? await s.services.findOne({ id: body.service, environmentId: env.id }) : undefined)
          ?? await s.services.findOne({ name: body.service, environmentId: env.id });
        if (!service) throw webhookNotFound('Service not found');
        try {
          return await once(ctx, sig, async () => {
            ctx.state.audit = { action: 'webhookDeploy', resourceType: 'services', resourceId: service.id, environmentId: env.id, details: { source: 'webhook', imageTag: body.imageTag ?? null } };
            const out = await deployServiceForWebhook(s, {
              environmentId: env.id, serviceId: service.id, serviceName: service.name, imageTag: body.imageTag, generateArtifacts: body.generateArtifacts,
            });
            // 502 as for an outgoing webhook's failed receiver (DECISIONS): the request was fine,
            // the servers behind us did not converge. 500 would claim a bug in Stevedore.
            if (!out.success) {
              throw new AppError('SERVICE_UNAVAILABLE', `The deploy ${out.status.replace('_', ' ')}${out.error ? `: ${out.error}` : ''}`,
                { status: 502, details: { deploymentId: out.deploymentId, status: out.status } });
            }
            return result(200, { success: true, deploymentId: out.deploymentId, status: out.status });
          });
        } catch (e) {
          // Errors rule 1: a failed deploy answers {error} rather than the envelope.
          if (isAppError(e) && e.code === 'CONFLICT') throw e;
          if (!isAppError(e)) s.logger.warn('webhook deploy failed', { serviceId: service.id, error: (e as Error).message });
          return result(isAppError(e) ? e.status : 500, { error: isAppError(e) ? e.message : 'The deploy failed', ...(isAppError(e) ? e.details : {}) });
        }
      },
    }),

    route<unknown, unknown, Signed>({
      method: 'POST', path: '/api/webhooks/deploy-image', operationId: 'webhookDeployImage', tag: 'webhooks', access: 'public',
      summary: 'CI deploy of every service using an image: a dependency-ordered plan executed with auto-rollback. '
        + 'Needs the image in the environment with autoUpdate on and at least one linked service.',
      load: signed(() => s.config.webhookSecret, 'x-webhook-signature', ''), errors: [401, 404, 409, 415, 503], status: 202,
      response: object({ success: bool, planId: uuid, serviceCount: int(0), services: arrayOf(str()) }),
      async handler(ctx, { resource: sig }) {
        const body = validateBody<{ imageName: string; environment: string; imageTag: string }>(deployImageBody, ctx.request.body ?? {});
        const env = await environmentNamed(body.environment);
        const image = await s.containerImages.findOne({ environmentId: env.id, imageName: body.imageName });
        if (!image) throw webhookNotFound('Container image not found');
        if (!image.autoUpdate) {
          throw validationError('Auto-update is disabled for this image', 'imageName',
            `Enable it with PATCH /api/container-images/${image.id} {"autoUpdate": true}`);
        }
        const held = heldBack(image, body.imageTag);
        if (held) throw conflict(held, 'Push a newer version, or deploy this one on purpose with POST /api/container-images/{id}/deploy');
        const services = await s.serviceImages.usersOf(image.id);
        if (services.length === 0) {
          throw validationError('No service uses this image', 'imageName', 'Link a service to the image (set its containerImageId)');
        }
        return once(ctx, sig, async () => {
          const plan = await createAutoRollbackPlanForWebhook(s, {
            environmentId: env.id, serviceIds: services.map((x: { id: string }) => x.id), imageTag: body.imageTag,
            name: `webhook: ${body.imageName}:${body.imageTag}`,
          });
          ctx.state.audit = { action: 'webhookDeployImage', resourceType: 'container-images', resourceId: image.id, environmentId: env.id, details: { source: 'webhook', imageTag: body.imageTag, planId: plan.planId } };
          return result(202, { success: true, planId: plan.planId, serviceCount: services.length, services: services.map((x: { name: string }) => x.name) });
        });
      },
    }),

    route<unknown, unknown, Signed>({
      method: 'POST', path: '/api/webhooks/codehost', operationId: 'webhookCodehost', tag: 'webhooks', access: 'public',
      summary: 'Code-host webhook (X-Hub-Signature-256: sha256=<hex> with CODEHOST_WEBHOOK_SECRET). Only the package event with '
        + 'action published deploys: every service whose image name contains the package name, one auto-rollback plan per environment. '
        + 'Only where the update check would: the tag is newer than the image\'s current one under its policy (or is the current tag, re-pushed), '
        + 'and is not the version whose auto-update failed (409 when that holds back every service). Services left out are listed in skipped.',
      load: signed(() => s.config.codehostWebhookSecret, 'x-hub-signature-256', 'sha256='), errors: [401, 409, 415, 503],
      response: codehostAnswer,
      alsoAnswers: { 202: { description: 'Published version accepted: one auto-rollback plan per environment was started', response: codehostAnswer } },
      async handler(ctx, { resource: sig }) {
        const event = ctx.get('x-github-event') || ctx.get('x-codehost-event');
        const body = (ctx.request.body ?? {}) as { action?: string; package?: { name?: string; package_version?: { version?: string; container_metadata?: { tag?: { name?: string; digest?: string } } } } };
        ctx.state.audit = { skip: true }; // only a deploy is audited (in once())
        if (event === 'ping') return { success: true, ignored: true, reason: 'ping', serviceCount: 0, plans: [] };
        if (event !== 'package' || body.action !== 'published') {
          return { success: true, ignored: true, reason: `event ${event || '(none)'} ${body.action ?? ''}`.trim() + ' does not deploy', serviceCount: 0, plans: [] };
        }
        const name = body.package?.name;
        const version = body.package?.package_version;
        const imageTag = version?.container_metadata?.tag?.name || version?.version;
        if (typeof name !== 'string' || !name) throw validationError('package.name is required', 'package.name');
        if (typeof imageTag !== 'string' || !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(imageTag)) {
          throw validationError('The package version carries no usable image tag', 'package.package_version');
        }
        const pushedDigest = version?.container_metadata?.tag?.digest;
        const digest = typeof pushedDigest === 'string' && /^sha256:[a-f0-9]{64}$/.test(pushedDigest) ? pushedDigest : null;
        const matched = await s.serviceImages.usingPackage(name);
        if (matched.length === 0) return { success: true, ignored: true, reason: 'no service uses this package', serviceCount: 0, plans: [] };
        // the update check's reading of "newer" and its failed-version hold, per image
        const verdicts = new Map<string, PushedVersionVerdict>();
        for (const id of new Set(matched.map((r) => r.containerImageId))) {
          const image = await s.containerImages.findById(id);
          if (image) verdicts.set(id, judgePushedTag(image, await currentTagOf(s, image), imageTag, digest));
        }
        const rows = matched.filter((r) => verdicts.get(r.containerImageId)?.deploy);
        const skipped = matched.flatMap((r) => {
          const v = verdicts.get(r.containerImageId);
          return v && !v.deploy ? [{ service: r.name, environment: r.environmentName, reason: v.reason, held: v.held }] : [];
        });
        const skippedOut = skipped.map(({ held: _held, ...x }) => x);
        if (rows.length === 0) {
          const held = skipped.find((x) => x.held);
          if (held) throw conflict(held.reason, 'Push a newer version, or deploy this one on purpose with POST /api/container-images/{id}/deploy');
          return { success: true, ignored: true, reason: skipped[0]?.reason ?? 'no service uses this package', serviceCount: 0, plans: [], skipped: skippedOut };
        }
        return once(ctx, sig, async () => {
          const byEnv = new Map<string, typeof rows>();
          for (const r of rows) byEnv.set(r.environmentId, [...(byEnv.get(r.environmentId) ?? []), r]);
          const plans = [];
          for (const [environmentId, list] of byEnv) {
            const plan = await createAutoRollbackPlanForWebhook(s, {
              environmentId, serviceIds: list.map((r: { id: string }) => r.id), imageTag, name: `codehost: ${name}:${imageTag}`,
            });
            plans.push({ environment: list[0].environmentName, planId: plan.planId, services: list.map((r: { name: string }) => r.name) });
          }
          ctx.state.audit = { action: 'webhookCodehost', resourceType: 'packages', details: { source: 'webhook', package: name, imageTag, plans: plans.map((p) => p.planId) } };
          return result(202, { success: true, ignored: false, serviceCount: rows.length, plans, skipped: skippedOut });
        });
      },
    }),
  ];
}
