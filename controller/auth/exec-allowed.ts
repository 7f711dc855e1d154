import type { Services } from '../services.js';

/**
 * Whether exec and runs (exec sessions, one-off runs, scheduled jobs' runs) may start in an
 * environment: its operations.allowExec, an admin's setting (default on). The one place it is read.
 */
export async function execAllowed(s: Pick<Services, 'settings'>, environmentId: string): Promise<boolean> {
  const ops = await s.settings.get<{ allowExec?: boolean }>(environmentId, 'operations');
  return ops.allowExec !== false;
}
