/** What it reads: the environment's settings (Services, or a narrower context such as volumes'). */
export interface SettingsReader { settings: { get<T>(environmentId: string, module: string): Promise<T> } }

/**
 * Whether exec and runs (exec sessions, one-off runs, scheduled jobs' runs) may start in an
 * environment: its operations.allowExec, an admin's setting (default on). The one place it is read.
 */
export async function execAllowed(s: SettingsReader, environmentId: string): Promise<boolean> {
  const ops = await s.settings.get<{ allowExec?: boolean }>(environmentId, 'operations');
  return ops.allowExec !== false;
}
