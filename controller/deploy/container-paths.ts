// Paths inside a container that no mount may aim at: the kernel's trees, which Docker mounts in
// every container (a bind mount over /proc is refused by the runtime, and one under /sys or /dev
// reaches the host's devices), and the files Docker itself bind-mounts into each container. Such a
// target fails every deploy at Docker, so it is refused where it enters (config-file attachments,
// service volumes, manifests) and, for rows stored before this rule, by the deploy before it
// touches the server.
import { posix } from 'node:path';

/** Trees the kernel provides in every container. */
export const KERNEL_TREES = ['/proc', '/sys', '/dev'] as const;
/** Files Docker bind-mounts into every container it creates. */
export const DOCKER_OWNED_FILES = ['/etc/hostname', '/etc/hosts', '/etc/resolv.conf', '/.dockerenv'] as const;

/** Why `path` (absolute, inside the container) may not be a mount target, or null when it may. */
export function reservedContainerPath(path: string): string | null {
  const p = posix.normalize(`/${path}`).replace(/\/+$/, '') || '/';
  if (p === '/') return 'is the container\'s root';
  const tree = KERNEL_TREES.find((t) => p === t || p.startsWith(`${t}/`));
  if (tree) return `is inside ${tree}, which the kernel provides in every container`;
  if ((DOCKER_OWNED_FILES as readonly string[]).includes(p)) return `is a file Docker mounts into every container itself`;
  return null;
}

export const CONTAINER_PATH_HINT = 'Choose a path of your application, such as /etc/myapp/app.conf or /var/lib/myapp';

/** The container side of a volume spec ("name:/data", "/srv:/data:ro", "/data"). */
export const volumeTarget = (spec: string): string => {
  const parts = spec.split(':');
  return parts.length === 1 ? parts[0] : parts[1];
};

/**
 * The first mount target of a container that is reserved, described for an error, or null.
 * Rows stored before the rule (or written around the API) are caught here, before a deploy
 * touches the server: Docker would refuse the container and every rollback would recreate it.
 */
export function reservedMountOf(mounts: { files: { targetPath: string }[]; volumes: string[] }): string | null {
  for (const f of mounts.files) {
    const why = reservedContainerPath(f.targetPath);
    if (why) return `the config-file target ${f.targetPath} ${why}`;
  }
  for (const v of mounts.volumes) {
    const why = reservedContainerPath(volumeTarget(v));
    if (why) return `the volume ${v} ${why}`;
  }
  return null;
}
