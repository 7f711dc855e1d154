import type { Topology, TopologyNode } from '../store/repositories/topology.js';

/**
 * Mermaid flowchart text of an environment's topology. Node ids are derived from kind and id
 * (stable across exports); names go through Mermaid's entity codes so no name can break out of
 * its label. Servers of a cluster are drawn inside its subgraph (the first cluster by name
 * when a server is in several: Mermaid draws a node once).
 */
export function toMermaid(t: Topology): string {
  const idOf = (kind: string, id: string) => `${kind.toLowerCase()}_${id.replace(/-/g, '')}`;
  const lines = ['flowchart LR'];
  const inCluster = new Map<string, string>();
  for (const c of t.clusters) for (const s of c.serverIds) if (!inCluster.has(s)) inCluster.set(s, c.id);
  const byId = new Map(t.nodes.map((n) => [`${n.kind}/${n.id}`, n]));
  for (const c of t.clusters) {
    const members = c.serverIds.filter((s) => inCluster.get(s) === c.id && byId.has(`Server/${s}`));
    lines.push(`  subgraph ${idOf('cluster', c.id)}["${text(c.name)}"]`);
    for (const s of members) lines.push(`    ${shape(idOf('Server', s), byId.get(`Server/${s}`)!)}`);
    lines.push('  end');
  }
  for (const n of t.nodes) {
    if (n.kind === 'Server' && inCluster.has(n.id)) continue;
    lines.push(`  ${shape(idOf(n.kind, n.id), n)}`);
  }
  for (const e of t.edges) {
    const arrow = e.kind === 'dependency' ? '-.->' : '-->';
    const label = e.label ? `|"${text(e.label)}"|` : '';
    lines.push(`  ${idOf(e.from.kind, e.from.id)} ${arrow}${label} ${idOf(e.to.kind, e.to.id)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A node in the shape of its kind: servers boxes, services rounded, databases cylinders, external hexagons. */
function shape(id: string, n: TopologyNode): string {
  const label = `"${text(n.detail ? `${n.name} (${n.detail})` : n.name)}"`;
  switch (n.kind) {
    case 'Service': return `${id}(${label})`;
    case 'Database': return `${id}[(${label})]`;
    case 'ExternalEntity': return `${id}{{${label}}}`;
    default: return `${id}[${label}]`;
  }
}

/** Label text safe inside Mermaid's quotes: entity codes for what would end or alter it. */
function text(s: string): string {
  return s.replace(/[\r\n]+/g, ' ').replace(/[#"<>&|;`]/g, (c) => `#${c.charCodeAt(0)};`);
}
