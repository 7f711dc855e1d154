// A real Docker registry (the machine's docker-registry binary) on a free loopback port with its
// own storage, for API tests and the bench, and a push that needs no Docker: blobs and a Docker
// v2 manifest through the registry API. Each push of new content gives the tag a new digest.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalRegistry {
  url: string;
  host: string;
  push(repository: string, tag: string, content?: string): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const srv = createServer().listen(0, '127.0.0.1', () => {
    const { port } = srv.address() as { port: number };
    srv.close(() => resolve(port));
  }).on('error', reject);
});

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export async function startLocalRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'stevedore-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  writeFileSync(join(dir, 'config.yml'), [
    'version: 0.1', 'log: {level: error, accesslog: {disabled: true}}',
    `storage: {filesystem: {rootdirectory: ${dir}/data}, delete: {enabled: true}}`,
    `http: {addr: "${host}", secret: local-test}`,
  ].join('\n'));
  const child: ChildProcess = spawn(process.env.REGISTRY_BIN ?? 'docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  const url = `http://${host}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/v2/`)).ok) break;
    } catch { /* not up yet */ }
    if (i > 200 || child.exitCode !== null) throw new Error(`docker-registry did not start on ${host}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const putBlob = async (repository: string, data: Buffer) => {
    const digest = sha(data);
    const start = await fetch(`${url}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
    const location = new URL(start.headers.get('location')!, url);
    location.searchParams.set('digest', digest);
    const done = await fetch(location, { method: 'PUT', body: data, headers: { 'content-type': 'application/octet-stream' } });
    if (done.status !== 201) throw new Error(`blob upload answered ${done.status}`);
    return { digest, size: data.length };
  };

  return {
    url, host,
    async push(repository, tag, content = `${repository}:${tag}`) {
      const layer = await putBlob(repository, Buffer.from(content));
      const config = await putBlob(repository, Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Env: [`CONTENT=${content}`] }, rootfs: { type: 'layers', diff_ids: [layer.digest] } })));
      const manifest = Buffer.from(JSON.stringify({
        schemaVersion: 2, mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
        config: { mediaType: 'application/vnd.docker.container.image.v1+json', ...config },
        layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', ...layer }],
      }));
      const res = await fetch(`${url}/v2/${repository}/manifests/${tag}`, { method: 'PUT', body: manifest, headers: { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' } });
      if (res.status !== 201) throw new Error(`manifest push answered ${res.status}: ${await res.text()}`);
      return res.headers.get('docker-content-digest')!;
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
