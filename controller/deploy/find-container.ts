// A deployment's container is named by its containerName, except when a hand-written compose file
// gives it no container_name: then compose names it <project>-<service>-1 and only its
// com.docker.compose.service label (the compose service keyed by containerName, rule 5) finds it.
import type Docker from 'dockerode';

const notFound = (e: unknown) => (e as { statusCode?: number }).statusCode === 404;

/** The container's id, or null when it does not exist. */
export async function findContainer(docker: Docker, containerName: string): Promise<string | null> {
  try {
    return (await docker.getContainer(containerName).inspect()).Id;
  } catch (e) {
    if (!notFound(e)) throw e;
  }
  return findByComposeLabel(docker, containerName);
}

/**
 * The container's inspect document, or null when it does not exist: one round trip when the
 * name finds it (an observation of every deployment pays it once, not twice).
 */
export async function inspectContainer(docker: Docker, containerName: string): Promise<Docker.ContainerInspectInfo | null> {
  try {
    return await docker.getContainer(containerName).inspect();
  } catch (e) {
    if (!notFound(e)) throw e;
  }
  const id = await findByComposeLabel(docker, containerName);
  if (!id) return null;
  try {
    return await docker.getContainer(id).inspect();
  } catch (e) {
    if (notFound(e)) return null;
    throw e;
  }
}

async function findByComposeLabel(docker: Docker, containerName: string): Promise<string | null> {
  const found = await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.service=${containerName}`] } });
  const running = found.find((c) => c.State === 'running');
  return (running ?? found[0])?.Id ?? null;
}
