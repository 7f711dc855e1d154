// The environment's topology: servers, services, databases and external entities with their
// connections and dependencies, drawn as a small SVG (the saved diagram layout when there is one,
// else one column per kind), listed as text for screen readers, and the Mermaid export to copy.
import { authHeaders, get } from '../api';
import { useLoad } from '../hooks';
import { ErrorNote } from '../components/status';

interface Node { kind: string; id: string; name: string; detail: string | null }
interface Edge { kind: string; id: string; from: { kind: string; id: string }; to: { kind: string; id: string }; label: string | null }
interface Topology { nodes: Node[]; edges: Edge[]; layout: { nodes: Record<string, { x: number; y: number }> } }

const KINDS = ['Server', 'Service', 'Database', 'ExternalEntity'];
const W = 170, H = 44, COL = 240, ROW = 70;
const keyOf = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`;

async function mermaid(envId: string, signal: AbortSignal): Promise<string> {
  const res = await fetch(`/api/diagram-export?environmentId=${envId}`, { headers: authHeaders(), signal });
  return res.ok ? res.text() : `(export failed: ${res.status})`;
}

/** Where each node goes: the saved layout, else its kind's column, one row after another. */
function place(t: Topology): Map<string, { x: number; y: number }> {
  const at = new Map<string, { x: number; y: number }>();
  const rows = new Map<string, number>();
  for (const n of t.nodes) {
    const saved = t.layout.nodes[keyOf(n)];
    const col = Math.max(0, KINDS.indexOf(n.kind));
    const row = rows.get(n.kind) ?? 0;
    rows.set(n.kind, row + 1);
    at.set(keyOf(n), saved ?? { x: 20 + col * COL, y: 20 + row * ROW });
  }
  return at;
}

export function TopologyPage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const data = useLoad(async (signal) => {
    const [topology, text] = await Promise.all([get<Topology>(`/api/environments/${envId}/topology`, signal), mermaid(envId, signal)]);
    return { topology, text };
  }, [envId]);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { topology: t, text } = data.data;
  if (!t.nodes.length) return <p>Nothing in this environment yet.</p>;
  const at = place(t);
  const name = new Map(t.nodes.map((n) => [keyOf(n), n.name]));
  const xs = [...at.values()].map((p) => p.x), ys = [...at.values()].map((p) => p.y);
  const [minX, minY] = [Math.min(...xs) - 20, Math.min(...ys) - 20];
  const [width, height] = [Math.max(...xs) + W + 20 - minX, Math.max(...ys) + H + 20 - minY];
  return (
    <div>
      <svg class="topology" role="img" aria-labelledby="topology-title" viewBox={`${minX} ${minY} ${width} ${height}`} width={width} height={height}>
        <title id="topology-title">Topology diagram: {t.nodes.length} nodes, {t.edges.length} links (listed below)</title>
        <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" /></marker></defs>
        {t.edges.map((e) => {
          const a = at.get(keyOf(e.from)), b = at.get(keyOf(e.to));
          return a && b && <line class={`edge ${e.kind}`} x1={a.x + W} y1={a.y + H / 2} x2={b.x} y2={b.y + H / 2} marker-end="url(#arrow)" />;
        })}
        {t.nodes.map((n) => {
          const p = at.get(keyOf(n))!;
          return (
            <g class={`node ${n.kind}`} transform={`translate(${p.x} ${p.y})`}>
              <rect width={W} height={H} rx="6" />
              <text x="8" y="18">{n.name}</text>
              <text x="8" y="35" class="kind">{n.kind === 'ExternalEntity' ? 'external' : n.kind.toLowerCase()}{n.detail ? ` · ${n.detail}` : ''}</text>
            </g>
          );
        })}
      </svg>

      <h2>Links</h2>
      {t.edges.length ? (
        <ul class="plain" data-testid="topology-links">
          {t.edges.map((e) => <li>{name.get(keyOf(e.from)) ?? e.from.id} → {name.get(keyOf(e.to)) ?? e.to.id} <span class="reason">{e.kind}{e.label ? `: ${e.label}` : ''}</span></li>)}
        </ul>
      ) : <p>No connection or dependency yet.</p>}

      <h2>Mermaid export</h2>
      <pre tabIndex={0} aria-label="Mermaid flowchart">{text}</pre>
    </div>
  );
}
