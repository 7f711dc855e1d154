// A deployment's container is named by its containerName, except when a hand-written compose file
// gives it no container_name: then compose names it <project>-<service>-1 and only its
// com.docker.compose.service label (the compose service keyed by containerName, rule 5) finds it.
import type Docker from 'dockerode';

/** The container's id, or null when it does not exist. */
export async function findContainer(docker: Docker, containerName: string): Promise<string | null> {
  try {
    return (await docker.getContainer(containerName).inspect()).Id;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode !== 404) throw e;
  }
  const found = await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.service=${containerName}`] } });
  const running = found.find((c) => c.State === 'running');
  return (running ?? found[0])?.Id ?? null;
}
