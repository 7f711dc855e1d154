// What the environment's drift policy does about a container that is not running as deployed
// (docs/deploys.md#drift): said next to a `missing` or `stopped` status wherever it is shown, so a
// status never reads as if something were about to restore it when nothing will. Pure.

/** The note for a deployment's observed status under the environment's driftPolicy, or null when there is nothing to say. */
export function driftEffect(policy: string, status: string): string | null {
  if (status !== 'missing' && status !== 'stopped') return null;
  if (policy === 'heal') return 'to be restored: driftPolicy heal';
  if (policy === 'off') return 'not watched: driftPolicy off';
  return `not restored: driftPolicy ${policy}`;
}

/** The status a drift look's reasons mean (a drift item has reasons, not a status). */
export function statusOfReasons(reasons: string[]): string | null {
  return reasons.includes('ContainerMissing') ? 'missing' : reasons.includes('ContainerStopped') ? 'stopped' : null;
}
