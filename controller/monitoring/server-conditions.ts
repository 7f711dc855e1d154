// A server's Ready and Degraded conditions from what the checks observed (pure): Ready is the
// server check itself; Degraded is True while any check of the server or its containers is down
// by its alert state (so a single blip does not flip it, exactly like the alerts).
import { REASONS, setCondition, type Condition } from '../model/conditions.js';

export function serverConditions(previous: readonly Condition[], health: { status: 'healthy' | 'unhealthy'; message: string },
  down: Array<{ target: string }>, now = new Date()): Condition[] {
  let out = setCondition(previous, health.status === 'healthy'
    ? { type: 'Ready', status: 'True', reason: REASONS.Reachable, message: health.message }
    : { type: 'Ready', status: 'False', reason: REASONS.ServerUnreachable, message: health.message }, now);
  out = setCondition(out, down.length
    ? { type: 'Degraded', status: 'True', reason: REASONS.ChecksFailing, message: `down: ${down.map((d) => d.target).sort().join('; ')}`.slice(0, 1000) }
    : { type: 'Degraded', status: 'False', reason: REASONS.ServerChecksPassing, message: 'every check passes' }, now);
  return out;
}
