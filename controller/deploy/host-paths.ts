// Error texts leave the server: step errors, plan events, webhooks, chat. Docker's own errors
// name paths of the server's Docker data directory (an overlay layer of the container, the
// container's own folder), which say how the server is laid out and are of no use to the reader:
// they become `<docker data dir>/…`, wherever the data root is.

/** Folders Docker keeps under its data root, each followed by an object's 64-hex id. */
const DATA_ROOT_PATH = /(?:\/[^\s"'`:/]+)*\/(?:overlay2|overlay|containers|volumes|image|aufs|btrfs|zfs|vfs|fuse-overlayfs|containerd|plugins|swarm|buildkit|mounts|network|tmp|runtimes)\/(?:[^\s"'`:/]+\/)*[0-9a-f]{64}(?:[^\s"'`:]*)/g;

/** The text with every path into a Docker data root replaced by `<docker data dir>/…`. */
export function hideHostPaths(text: string): string {
  return text.replace(DATA_ROOT_PATH, '<docker data dir>/…');
}
