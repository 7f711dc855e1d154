import { validationError } from '../errors/app-error.js';

export interface OrderNode { id: string; name: string }
/** `serviceId` depends on `dependsOnServiceId`, so `dependsOnServiceId` deploys first. */
export interface OrderEdge { serviceId: string; dependsOnServiceId: string }

const byName = <T extends OrderNode>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Edges between the given nodes only, de-duplicated; edges to nodes outside the set are ignored. */
function adjacency<T extends OrderNode>(nodes: T[], edges: OrderEdge[]) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const deps = new Map<string, Set<string>>(nodes.map((n) => [n.id, new Set()]));
  const dependents = new Map<string, Set<string>>(nodes.map((n) => [n.id, new Set()]));
  for (const e of edges) {
    if (!byId.has(e.serviceId) || !byId.has(e.dependsOnServiceId)) continue;
    deps.get(e.serviceId)!.add(e.dependsOnServiceId);
    dependents.get(e.dependsOnServiceId)!.add(e.serviceId);
  }
  return { byId, deps, dependents };
}

/**
 * Finds one cycle among the nodes, as names from the first node back to it
 * (["web", "api", "web"]: web depends on api, api on web), or null. Deterministic: it starts
 * at the first node by name that lies on a cycle and follows dependencies by name.
 */
export function findCycle<T extends OrderNode>(nodes: T[], edges: OrderEdge[]): string[] | null {
  const { byId, deps } = adjacency(nodes, edges);
  // Peel off every node that depends on nothing left; what remains each has a remaining dependency.
  const remaining = new Set(byId.keys());
  let peeled = true;
  while (peeled) {
    peeled = false;
    for (const id of remaining) {
      if ([...deps.get(id)!].every((d) => !remaining.has(d))) {
        remaining.delete(id);
        peeled = true;
      }
    }
  }
  if (!remaining.size) return null;
  const sorted = [...remaining].map((id) => byId.get(id)!).sort(byName);
  // Walking dependencies inside `remaining` never gets stuck, so it must revisit a node.
  const path: string[] = [];
  const at = new Map<string, number>();
  let cur = sorted[0].id;
  while (!at.has(cur)) {
    at.set(cur, path.length);
    path.push(cur);
    const next = [...deps.get(cur)!].filter((d) => remaining.has(d)).map((d) => byId.get(d)!).sort(byName)[0];
    cur = next.id;
  }
  const cycle = path.slice(at.get(cur)!);
  return [...cycle, cycle[0]].map((id) => byId.get(id)!.name);
}

export const describeCycle = (names: string[]) => names.join(' -> ');

const cycleError = (names: string[], field?: string) =>
  validationError(`Dependency cycle: ${describeCycle(names)}`, field, 'Remove one of the dependencies in the cycle');

/**
 * Groups nodes into deployment levels: level 0 depends on nothing, level n only on earlier levels.
 * Nodes in one level may deploy in parallel. Within a level nodes are sorted by name (then id),
 * so the result is stable. A cycle throws VALIDATION_ERROR whose message names it.
 */
export function dependencyLevels<T extends OrderNode>(nodes: T[], edges: OrderEdge[]): T[][] {
  const { byId, deps, dependents } = adjacency(nodes, edges);
  const waiting = new Map([...deps].map(([id, d]) => [id, d.size]));
  const levels: T[][] = [];
  let current = [...byId.values()].filter((n) => waiting.get(n.id) === 0);
  let placed = 0;
  while (current.length) {
    current.sort(byName);
    levels.push(current);
    placed += current.length;
    const next: T[] = [];
    for (const n of current) {
      for (const d of dependents.get(n.id)!) {
        const left = waiting.get(d)! - 1;
        waiting.set(d, left);
        if (left === 0) next.push(byId.get(d)!);
      }
    }
    current = next;
  }
  if (placed < byId.size) throw cycleError(findCycle(nodes, edges)!);
  return levels;
}

/** A topological order: dependencies first, by name within a level. Throws on a cycle. */
export function dependencyOrder<T extends OrderNode>(nodes: T[], edges: OrderEdge[]): T[] {
  return dependencyLevels(nodes, edges).flat();
}

/**
 * The cycle that adding `serviceId -> dependsOnServiceId` would close, as names starting at
 * `serviceId` (["web", "api", "web"]), or null when the edge is safe.
 */
export function cycleIfAdded<T extends OrderNode>(nodes: T[], edges: OrderEdge[], edge: OrderEdge): string[] | null {
  const { byId, deps } = adjacency(nodes, edges);
  if (edge.serviceId === edge.dependsOnServiceId) {
    const n = byId.get(edge.serviceId);
    return n ? [n.name, n.name] : null;
  }
  // Shortest dependency path from the new target back to the source, breadth first.
  const prev = new Map<string, string | null>([[edge.dependsOnServiceId, null]]);
  const queue = [edge.dependsOnServiceId];
  while (queue.length) {
    const id = queue.shift()!;
    if (id === edge.serviceId) {
      const path: string[] = [];
      for (let c: string | null = id; c !== null; c = prev.get(c)!) path.unshift(c);
      return [edge.serviceId, ...path].map((p) => byId.get(p)!.name);
    }
    const next = [...(deps.get(id) ?? [])].map((d) => byId.get(d)!).sort(byName);
    for (const n of next) {
      if (!prev.has(n.id)) {
        prev.set(n.id, id);
        queue.push(n.id);
      }
    }
  }
  return null;
}

/** Throws VALIDATION_ERROR naming the cycle (field dependsOnServiceId) when the edge would close one. */
export function assertNoCycleIfAdded<T extends OrderNode>(nodes: T[], edges: OrderEdge[], edge: OrderEdge): void {
  const cycle = cycleIfAdded(nodes, edges, edge);
  if (cycle) throw cycleError(cycle, 'dependsOnServiceId');
}

/** Services `serviceId` could depend on without closing a cycle (excluding itself and current dependencies). */
export function dependencyCandidates<T extends OrderNode>(nodes: T[], edges: OrderEdge[], serviceId: string): T[] {
  const { deps, dependents } = adjacency(nodes, edges);
  // Anything that (transitively) depends on serviceId would close a cycle.
  const blocked = new Set([serviceId]);
  const queue = [serviceId];
  while (queue.length) {
    for (const d of dependents.get(queue.shift()!) ?? []) {
      if (!blocked.has(d)) {
        blocked.add(d);
        queue.push(d);
      }
    }
  }
  const current = deps.get(serviceId) ?? new Set();
  return nodes.filter((n) => !blocked.has(n.id) && !current.has(n.id)).sort(byName);
}
