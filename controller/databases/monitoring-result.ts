/** One monitoring probe of a database (monitor.ts): whether it answered, and its size. */
export interface MonitoringResult {
  reachable: boolean;
  message: string;
  latencyMs: number;
  sizeBytes: number | null;
  /** Why sizeBytes is null, when it is. */
  sizeMessage: string | null;
  checkedAt: string;
}
