import type { HealthStatus } from '../store/repositories/servers.js';

/** One live check of a server (health.ts checkServer). */
export interface HealthResult {
  status: Exclude<HealthStatus, 'unknown'>;
  message: string;
  durationMs: number;
}
