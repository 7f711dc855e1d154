import type { Services } from '../../controller/services.js';
import { conflict, notFound } from '../../controller/errors/app-error.js';
import { listBuckets, testBucket } from '../../controller/databases/storage/s3-store.js';
import type { ObjectStorageRow } from '../../controller/store/repositories/object-storage.js';
import { route } from '../http/route.js';
import { arrayOf, bool, nonEmpty, nullable, nullableTimestamp, object, str } from '../http/schema.js';
import { environmentOf } from './loaders.js';

const configRead = object({
  configured: bool, endpoint: nullable(str()), region: nullable(str()), bucket: nullable(str()), accessKeyId: nullable(str()),
  hasSecretAccessKey: bool, forcePathStyle: bool, updatedAt: nullableTimestamp,
});
const configBody = object({
  endpoint: str({ format: 'uri', minLength: 1, maxLength: 2048 }),
  region: nonEmpty(64),
  bucket: nonEmpty(63),
  accessKeyId: nonEmpty(256),
  secretAccessKey: { ...nonEmpty(1024), writeOnly: true },
  forcePathStyle: bool,
}, ['endpoint', 'region', 'bucket', 'accessKeyId']);
/** Key prefix: segments of letters, digits, `.`, `_` and `-` joined by `/`; never `.` or `..` as a segment, never absolute. */
export const STORAGE_PREFIX_PATTERN = '^(?!(.*/)?\\.{1,2}(/|$))[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*/?$';
const envStorage = object({
  enabled: bool, bucket: nullable(str({ minLength: 3, maxLength: 63 })),
  prefix: nullable(str({ minLength: 1, maxLength: 200, pattern: STORAGE_PREFIX_PATTERN, description: 'Key prefix, e.g. "team-a/backups" (no "." or ".." segment)' })),
});
const testResult = object({ ok: bool, message: str() });

const toConfig = (r: ObjectStorageRow | undefined) => ({
  configured: !!r, endpoint: r?.endpoint ?? null, region: r?.region ?? null, bucket: r?.bucket ?? null,
  accessKeyId: r?.accessKeyId ?? null, hasSecretAccessKey: !!r, forcePathStyle: r?.forcePathStyle ?? true, updatedAt: r?.updatedAt ?? null,
});

type ConfigBody = { endpoint: string; region: string; bucket: string; accessKeyId: string; secretAccessKey?: string; forcePathStyle?: boolean };

/** The global S3-compatible storage (admin) and each environment's use of it. */
export default function objectStorageRoutes(s: Services) {
  const env = environmentOf(s);
  const repo = s.objectStorage;
  const stores = s.databaseOps.ctx.stores;
  const saved = async () => {
    const c = await stores.s3();
    if (!c) throw notFound('Object storage configuration');
    return c;
  };

  return [
    route({
      method: 'GET', path: '/api/settings/storage-space', operationId: 'getObjectStorage', tag: 'storage', access: 'admin',
      response: configRead, summary: 'The global object storage configuration; the secret key is never shown',
      handler: async () => toConfig(await repo.get()),
    }),

    route<ConfigBody>({
      method: 'PUT', path: '/api/settings/storage-space', operationId: 'saveObjectStorage', tag: 'storage', access: 'admin',
      body: configBody, response: configRead, errors: [409],
      summary: 'Save the object storage configuration (S3-compatible); secretAccessKey is write-only, omitted keeps the saved one',
      async handler(ctx, { body }) {
        const current = await repo.get();
        if (!body.secretAccessKey && !current) throw conflict('secretAccessKey is required the first time', undefined, 'secretAccessKey');
        await s.outgoing.validate(body.endpoint, 'endpoint');
        const row = await repo.save({
          endpoint: body.endpoint, region: body.region, bucket: body.bucket, accessKeyId: body.accessKeyId,
          forcePathStyle: body.forcePathStyle ?? true,
          secretAccessKeyEnc: body.secretAccessKey ? s.secretBox.seal(body.secretAccessKey) : current!.secretAccessKeyEnc,
        });
        ctx.state.audit = { details: { fields: Object.keys(body).filter((k) => k !== 'secretAccessKey') } };
        return toConfig(row);
      },
    }),

    route({
      method: 'DELETE', path: '/api/settings/storage-space', operationId: 'deleteObjectStorage', tag: 'storage', access: 'admin',
      status: 204, errors: [404], summary: 'Delete the global object storage configuration (stored backups stay in the bucket)',
      async handler() {
        if (!(await repo.remove())) throw notFound('Object storage configuration');
        return undefined;
      },
    }),

    route({
      method: 'POST', path: '/api/settings/storage-space/test', operationId: 'testObjectStorage', tag: 'storage', access: 'admin',
      response: testResult, errors: [404], summary: 'Whether the configured bucket answers with the saved credentials (a signed list whose answer must be S3\'s)',
      async handler() {
        const { client, row } = await saved();
        return testBucket(client, row.endpoint, row.bucket);
      },
    }),

    route({
      method: 'GET', path: '/api/settings/storage-space/buckets', operationId: 'listObjectStorageBuckets', tag: 'storage', access: 'admin',
      response: object({ items: arrayOf(str()) }), errors: [404, 409, 502, 503],
      summary: 'Buckets the saved credentials can see; 502 when the endpoint does not answer as S3, 503 when it is unreachable',
      async handler() {
        const { client, row } = await saved();
        return { items: await listBuckets(client, row.endpoint) };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/storage', operationId: 'getEnvironmentStorage', tag: 'storage', access: 'viewer',
      load: env, response: envStorage, summary: "Whether the environment's backups go to object storage, and where",
      async handler(_ctx, { resource }) {
        const r = await repo.ofEnvironment(resource.id);
        return { enabled: r.enabled, bucket: r.bucket, prefix: r.prefix };
      },
    }),

    route<{ enabled?: boolean; bucket?: string | null; prefix?: string | null }>({
      method: 'PATCH', path: '/api/environments/{envId}/storage', operationId: 'updateEnvironmentStorage', tag: 'storage', access: 'admin',
      load: env, body: { ...envStorage, minProperties: 1 }, response: envStorage, errors: [409],
      summary: 'Enable or disable object storage for the environment; bucket (default: the global one) and key prefix',
      async handler(ctx, { resource, body }) {
        if (body.enabled && !(await repo.get())) throw conflict('Object storage is not configured', 'PUT /api/settings/storage-space first');
        const r = await repo.saveEnvironment(resource.id, body);
        ctx.state.audit = { environmentId: resource.id, details: body };
        return { enabled: r.enabled, bucket: r.bucket, prefix: r.prefix };
      },
    }),

    route({
      method: 'GET', path: '/api/environments/{envId}/storage/buckets', operationId: 'listEnvironmentStorageBuckets', tag: 'storage',
      access: 'admin', load: env, response: object({ items: arrayOf(str()) }), errors: [404, 409, 502, 503],
      summary: 'Buckets the saved credentials can see (to pick the environment\'s); 502 not S3, 503 unreachable',
      async handler() {
        const { client, row } = await saved();
        return { items: await listBuckets(client, row.endpoint) };
      },
    }),

    route({
      method: 'POST', path: '/api/environments/{envId}/storage/test', operationId: 'testEnvironmentStorage', tag: 'storage', access: 'admin',
      load: env, response: testResult, errors: [404], summary: "Whether the environment's bucket answers",
      async handler(_ctx, { resource }) {
        const { client, row } = await saved();
        const r = await repo.ofEnvironment(resource.id);
        return testBucket(client, row.endpoint, r.bucket ?? row.bucket);
      },
    }),
  ];
}

