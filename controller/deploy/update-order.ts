// Which services may be updated start-first. Two containers of one service run side by side during
// a start-first switch, so the service must not publish a fixed host port: the new container
// could not bind it while the old one holds it. It is reached by its alias on the environment's
// network instead (a proxy on that network, or another service). One rule for the API and manifests.
import { normalizePort } from '../model/desired-container.js';
import type { UpdateOrder } from '../store/repositories/services.js';

export const UPDATE_ORDERS: readonly UpdateOrder[] = ['stop-first', 'start-first'];
export const DEFAULT_UPDATE_ORDER: UpdateOrder = 'stop-first';
export const DEFAULT_DRAIN_SEC = 5;

/** The ports that pin a host port ("8080:80", "127.0.0.1:8080:80"); "80" or "127.0.0.1::80" do not. */
export const fixedHostPorts = (ports: readonly string[]): string[] => ports.filter((p) => normalizePort(p).split(':').at(-2) !== '');

/** Why the service cannot be updated in this order (field and message), or null when it can. */
export function updateOrderProblem(s: { updateOrder?: UpdateOrder | null; ports?: readonly string[] | null }): { field: string; message: string } | null {
  if (s.updateOrder !== 'start-first') return null;
  const fixed = fixedHostPorts(s.ports ?? []);
  if (!fixed.length) return null;
  return {
    field: 'updateOrder',
    message: `updateOrder start-first runs the old and the new container side by side, so the service cannot publish a fixed host port (${fixed.join(', ')}); publish the container port alone ("80") or reach the service by its network alias`,
  };
}

