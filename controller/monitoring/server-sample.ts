/**
 * One observation of a server's resources at one moment: what the SSH collector and the agent
 * both produce, and what metrics storage keeps. A metric the environment does not collect (its
 * monitoring toggle is off) or that could not be read is absent, never zero: zero is a value.
 */
export type ServerSample = {
  serverId: string;             // servers.id (uuid)
  at: Date;
  /** How the sample was taken: over the pooled SSH connection, or posted by the agent. */
  source: 'ssh' | 'agent';
  cpuPercent?: number;          // collectCpu: 0–100, all cores together, since the previous reading
  memoryUsedBytes?: number;     // collectMemory: MemTotal − MemAvailable
  memoryTotalBytes?: number;
  swapUsedBytes?: number;       // collectSwap
  swapTotalBytes?: number;
  diskUsedBytes?: number;       // collectDisk: the filesystem holding Docker's data root
  diskTotalBytes?: number;
  load1?: number;               // collectLoad
  load5?: number;
  load15?: number;
  openFds?: number;             // collectFds: allocated file handles (/proc/sys/fs/file-nr)
  tcpConnections?: number;      // collectTcp: established TCP connections
  processes?: number;           // collectProcesses
  /** Per container, from `docker stats --no-stream`, keyed by container name. */
  containers?: ContainerSample[];
};

export type ContainerSample = {
  name: string;
  cpuPercent: number;
  memoryUsedBytes: number;
  memoryLimitBytes: number;
};

/** The per-server metric names, in the order history responses list their series. */
export const serverMetricNames = [
  'cpuPercent', 'memoryUsedBytes', 'memoryTotalBytes', 'swapUsedBytes', 'swapTotalBytes',
  'diskUsedBytes', 'diskTotalBytes', 'load1', 'load5', 'load15', 'openFds', 'tcpConnections', 'processes',
] as const;
export type ServerMetricName = (typeof serverMetricNames)[number];
