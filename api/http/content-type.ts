import { AppError } from '../../controller/errors/app-error.js';
import type { Ctx } from './types.js';

/** application/json or a +json type (parameters such as charset aside: koa's `request.type` drops them). */
export const isJsonType = (type: string) => type === 'application/json' || type.endsWith('+json');

/** The request carries body bytes (a length above zero, or a chunked body). */
export const hasBody = (ctx: Ctx) => Number(ctx.get('content-length') || 0) > 0 || !!ctx.get('transfer-encoding');

/** 415 for a body sent without a content type, or with one the operation does not read. */
export function unsupportedContentType(type: string, accepted = 'application/json'): AppError {
  return new AppError('VALIDATION_ERROR',
    type ? `Unsupported content type '${type}'; send ${accepted}` : `The request body has no Content-Type; send ${accepted}`,
    { status: 415, field: 'Content-Type' });
}
