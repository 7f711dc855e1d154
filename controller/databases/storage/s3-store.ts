// S3-compatible object storage through the AWS SDK: multipart upload from a stream (parts of
// 8 MB, two in flight), so a dump of any size passes through with bounded memory. The SDK is
// loaded on first use: a controller without object storage never pays for it.
import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { BackupStore } from './backup-store.js';
import { digestOf } from './digest-stream.js';
import { DependencyError, originOf } from '../../errors/dependency-error.js';
import { isOutgoingRefused, type OutgoingGuard } from '../../net/outgoing-guard.js';

export interface S3Settings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

const sdk = () => import('@aws-sdk/client-s3');

/** A client whose connections go through the outgoing guard (each call also checks the endpoint first: see `call`). */
export async function s3Client(c: S3Settings, guard: OutgoingGuard): Promise<S3Client> {
  const { S3Client: Client } = await sdk();
  const client = new Client({
    // the SDK's node handler with agents whose sockets resolve through the guard
    requestHandler: guard.agents(),
    endpoint: c.endpoint, region: c.region, forcePathStyle: c.forcePathStyle,
    credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey },
    maxAttempts: 2,
    // S3-compatible servers (MinIO, Ceph, Garage...) do not all take the SDK's default trailing
    // checksums in aws-chunked bodies; integrity is ours anyway (the object's SHA-256 is read back after upload).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  guarded.set(client, guard);
  return client;
}

/** The guard each client was made with: an IP-literal endpoint never reaches the agents' lookup. */
const guarded = new WeakMap<S3Client, OutgoingGuard>();

/** A bucket as a BackupStore; its calls' failures name the object storage (s3Failure). */
export function s3Store(client: S3Client, bucket: string, endpoint: string): BackupStore {
  const store: BackupStore = {
    kind: 's3',
    bucket,
    async put(key, body) {
      const { Upload } = await import('@aws-sdk/lib-storage');
      const upload = new Upload({ client, params: { Bucket: bucket, Key: key, Body: body }, partSize: 8 * 1024 * 1024, queueSize: 2, leavePartsOnError: false });
      await call(client, endpoint, () => upload.done());
      // what the bucket holds, read back: a multipart object has no whole-object SHA-256 of its own
      return digestOf(await store.get(key));
    },
    async get(key) {
      const { GetObjectCommand } = await sdk();
      const out = await call(client, endpoint, () => client.send(new GetObjectCommand({ Bucket: bucket, Key: key })));
      return out.Body as Readable;
    },
    async remove(key) {
      const { DeleteObjectCommand } = await sdk();
      await call(client, endpoint, () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })));
    },
  };
  return store;
}

const STORAGE = 'object storage';
const notS3 = (endpoint: string, detail: string, cause?: unknown) =>
  new DependencyError(STORAGE, 'bad-answer', `The object storage at ${originOf(endpoint)} did not answer as S3 (${detail})`, {
    cause, hint: 'Check that the endpoint is the S3 API of the object store, not its console or another service',
  });

/**
 * What an S3 call's failure means, as a DependencyError naming the object storage: no HTTP
 * answer at all is `unreachable` (one message for a refused, reset or silent port); an answer the
 * SDK cannot read as S3's XML is `not S3`; an S3 error answer keeps its status and error name.
 */
export function s3Failure(endpoint: string, err: unknown): DependencyError {
  const e = (err ?? {}) as { name?: string; message?: string; $fault?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  if (status === undefined) {
    return new DependencyError(STORAGE, 'unreachable', `The object storage at ${originOf(endpoint)} is not reachable`, {
      cause: err, hint: 'Check the endpoint and that the controller can reach it',
    });
  }
  if (!e.$fault || /Deserialization error|XML parse error/i.test(e.message ?? '')) return notS3(endpoint, `HTTP ${status}`, err);
  return new DependencyError(STORAGE, 'bad-answer', `The object storage at ${originOf(endpoint)} answered HTTP ${status} (${e.name ?? 'error'})`, { cause: err });
}

/** One S3 call after the guard's look at the endpoint; its failure as s3Failure says (a refusal stays one). */
async function call<T>(client: S3Client, endpoint: string, send: () => Promise<T>): Promise<T> {
  try {
    await guarded.get(client)!.check(endpoint);
    return await send();
  } catch (err) {
    if (isOutgoingRefused(err)) throw storageRefused(endpoint, err);
    throw s3Failure(endpoint, err);
  }
}

/** The endpoint is an address the controller may not reach (the outgoing guard said so). */
const storageRefused = (endpoint: string, err: unknown) =>
  new DependencyError(STORAGE, 'refused', `The object storage at ${originOf(endpoint)} is not an allowed destination: ${(err as Error).message}`, { cause: err });

/** The buckets the credentials see; an answer without S3's bucket list is refused as not S3. */
export async function listBuckets(client: S3Client, endpoint: string): Promise<string[]> {
  const { ListBucketsCommand } = await sdk();
  const out = await call(client, endpoint, () => client.send(new ListBucketsCommand({})));
  if (!Array.isArray(out.Buckets) && !out.Owner) throw notS3(endpoint, 'no bucket list in the answer');
  return (out.Buckets ?? []).map((b) => b.Name!).filter(Boolean).sort();
}

/**
 * Whether the bucket answers with these credentials, through a signed list of at most one key
 * whose answer must be S3's (it names the bucket): an HTTP server that is not S3 is said to be
 * so. A message that never holds a credential, the same for every connection-level failure.
 */
export async function testBucket(client: S3Client, endpoint: string, bucket: string): Promise<{ ok: boolean; message: string }> {
  const { ListObjectsV2Command } = await sdk();
  try {
    const out = await call(client, endpoint, () => client.send(new ListObjectsV2Command({ Bucket: bucket, MaxKeys: 1 })));
    if (out.Name !== bucket) throw notS3(endpoint, 'the answer does not name the bucket');
    return { ok: true, message: `bucket '${bucket}' is reachable` };
  } catch (err) {
    const e = err as DependencyError;
    if (e.kind === 'unreachable') return { ok: false, message: `the object storage at ${originOf(endpoint)} is unreachable` };
    if (e.kind === 'refused') return { ok: false, message: e.message };
    const status = ((e.cause ?? {}) as { $fault?: string; $metadata?: { httpStatusCode?: number } });
    if (status.$fault && status.$metadata?.httpStatusCode) return { ok: false, message: `bucket '${bucket}' cannot be reached: HTTP ${status.$metadata.httpStatusCode}` };
    return { ok: false, message: e.message };
  }
}
