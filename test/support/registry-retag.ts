// Pushes a tag by copying an image that is already in the registry, through the registry API
// alone (cross-repository blob mount + manifest PUT): what `docker push` of a re-tagged image
// does, without a build. The new tag's digest is the source image's digest.
const MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

export async function retag(registry: string, from: { repository: string; tag: string }, to: { repository: string; tag: string }): Promise<string> {
  const base = `http://${registry}/v2`;
  const res = await fetch(`${base}/${from.repository}/manifests/${from.tag}`, { headers: { accept: MANIFEST } });
  if (!res.ok) throw new Error(`manifest ${from.repository}:${from.tag} answered ${res.status}`);
  const body = await res.text();
  const manifest = JSON.parse(body) as { config: { digest: string }; layers: Array<{ digest: string }> };
  if (from.repository !== to.repository) {
    for (const { digest } of [manifest.config, ...manifest.layers]) {
      const mount = await fetch(`${base}/${to.repository}/blobs/uploads/?mount=${digest}&from=${from.repository}`, { method: 'POST' });
      if (mount.status !== 201) throw new Error(`blob mount of ${digest} answered ${mount.status}`);
    }
  }
  const put = await fetch(`${base}/${to.repository}/manifests/${to.tag}`, { method: 'PUT', body, headers: { 'content-type': res.headers.get('content-type') ?? MANIFEST } });
  if (put.status !== 201) throw new Error(`manifest push of ${to.repository}:${to.tag} answered ${put.status}: ${await put.text()}`);
  return put.headers.get('docker-content-digest')!;
}
