// An S3-compatible server for tests: s3rver (a small fake S3 in node) on a free port, with its
// files in a temp folder. It stands in for S3/MinIO; the code under test reaches it only through
// @aws-sdk/client-s3 over real HTTP, as it would reach a real object store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';

export interface S3Server {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Where s3rver keeps the objects (tests may corrupt one there to prove verification). */
  directory: string;
  stop(): Promise<void>;
}

export async function startS3Server(buckets: string[]): Promise<S3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'stevedore-s3-'));
  const server = new S3rver({
    port: 0, address: '127.0.0.1', silent: true, directory, resetOnClose: true,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const address = (await server.run()) as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', region: 'us-east-1', directory,
    async stop() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
