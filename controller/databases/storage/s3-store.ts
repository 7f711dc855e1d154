// S3-compatible object storage through the AWS SDK: multipart upload from a stream (parts of
// 8 MB, two in flight), so a dump of any size passes through with bounded memory. The SDK is
// loaded on first use: a controller without object storage never pays for it.
import type { S3Client } from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import type { BackupStore } from './backup-store.js';
import { digestOf } from './digest-stream.js';

export interface S3Settings {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

const sdk = () => import('@aws-sdk/client-s3');

export async function s3Client(c: S3Settings): Promise<S3Client> {
  const { S3Client: Client } = await sdk();
  return new Client({
    endpoint: c.endpoint, region: c.region, forcePathStyle: c.forcePathStyle,
    credentials: { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey },
    maxAttempts: 2,
    // S3-compatible servers (MinIO, Ceph, Garage...) do not all take the SDK's default trailing
    // checksums in aws-chunked bodies; integrity is ours anyway (the object's SHA-256 is read back after upload).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export function s3Store(client: S3Client, bucket: string): BackupStore {
  const store: BackupStore = {
    kind: 's3',
    bucket,
    async put(key, body) {
      const { Upload } = await import('@aws-sdk/lib-storage');
      const upload = new Upload({ client, params: { Bucket: bucket, Key: key, Body: body }, partSize: 8 * 1024 * 1024, queueSize: 2, leavePartsOnError: false });
      await upload.done();
      // what the bucket holds, read back: a multipart object has no whole-object SHA-256 of its own
      return digestOf(await store.get(key));
    },
    async get(key) {
      const { GetObjectCommand } = await sdk();
      const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return out.Body as Readable;
    },
    async remove(key) {
      const { DeleteObjectCommand } = await sdk();
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
  return store;
}

export async function listBuckets(client: S3Client): Promise<string[]> {
  const { ListBucketsCommand } = await sdk();
  const out = await client.send(new ListBucketsCommand({}));
  return (out.Buckets ?? []).map((b) => b.Name!).filter(Boolean).sort();
}

/** Whether the bucket answers with these credentials; a message that never holds a credential. */
export async function testBucket(client: S3Client, bucket: string): Promise<{ ok: boolean; message: string }> {
  const { HeadBucketCommand } = await sdk();
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return { ok: true, message: `bucket '${bucket}' is reachable` };
  } catch (err) {
    const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    return { ok: false, message: `bucket '${bucket}' cannot be reached: ${status ? `HTTP ${status}` : e.name ?? 'error'}` };
  }
}
