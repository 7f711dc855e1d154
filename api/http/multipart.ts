import getRawBody from 'raw-body';
import { validationError } from '../../controller/errors/app-error.js';
import type { Ctx } from './types.js';

export interface MultipartFile { field: string; filename: string; contentType: string; data: Buffer }
export interface MultipartForm { fields: Record<string, string>; files: MultipartFile[] }

/**
 * Reads a multipart/form-data body (RFC 7578) into memory, up to `limit` bytes. Enough for
 * config assets; not a streaming parser.
 */
export async function readMultipart(ctx: Ctx, limit = 10 * 1024 * 1024): Promise<MultipartForm> {
  const type = ctx.get('content-type');
  const m = /^multipart\/form-data;.*\bboundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  if (!m) throw validationError('Send the file as multipart/form-data', 'file');
  const raw = await getRawBody(ctx.req, { limit, length: ctx.get('content-length') || undefined })
    .catch((e: { status?: number }) => {
      throw e.status === 413 ? validationError(`The upload is larger than ${limit} bytes`, 'file') : e;
    });
  return parseMultipart(raw, m[1] ?? m[2]);
}

export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const delimiter = Buffer.from(`--${boundary}`);
  const form: MultipartForm = { fields: {}, files: [] };
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw validationError('Malformed multipart body', 'file');
  for (;;) {
    pos += delimiter.length;
    if (body.subarray(pos, pos + 2).toString() === '--') break; // closing delimiter
    pos += 2; // CRLF after the delimiter
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), pos);
    if (headerEnd < 0 || next < 0 || headerEnd > next) throw validationError('Malformed multipart body', 'file');
    const headers = body.subarray(pos, headerEnd).toString('utf8');
    const data = body.subarray(headerEnd + 4, next);
    const disposition = /content-disposition:\s*form-data;([^\r\n]*)/i.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) {
      if (filename !== undefined) {
        const contentType = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1].trim() ?? 'application/octet-stream';
        form.files.push({ field: name, filename, contentType, data: Buffer.from(data) });
      } else form.fields[name] = data.toString('utf8');
    }
    pos = next + 2;
  }
  return form;
}
