// The environment's topology: servers, services, databases and external entities with their
// connections, dependencies and where each service runs (its deployments' servers), laid out by
// dagre (a layered layout whose edges are routed around the boxes) unless a diagram layout is saved
// for every node, listed as text for screen readers, and the Mermaid export to copy.
import dagre from '@dagrejs/dagre';
import { authHeaders, get } from '../api';
import { useLoad } from '../hooks';
import { ErrorNote } from '../components/status';

interface Node { kind: string; id: string; name: string; detail: string | null }
interface Edge { kind: string; id: string; from: { kind: string; id: string }; to: { kind: string; id: string }; label: string | null }
interface Topology { nodes: Node[]; edges: Edge[]; layout: { nodes: Record<string, { x: number; y: number }> } }
interface Point { x: number; y: number }

const W = 170, H = 44, RANKSEP = 80;
const keyOf = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`;

async function mermaid(envId: string, signal: AbortSignal): Promise<string> {
  const res = await fetch(`/api/diagram-export?environmentId=${envId}`, { headers: authHeaders(), signal });
  return res.ok ? res.text() : `(export failed: ${res.status})`;
}

/** A service → server edge per server its deployments run on (from the overview), once per pair. */
function placements(overview: any): Edge[] {
  const out = new Map<string, Edge>();
  for (const svc of overview.services ?? []) {
    for (const d of svc.deployments ?? []) {
      out.set(`${svc.id}:${d.serverId}`, { kind: 'placement', id: `${svc.id}:${d.serverId}`, from: { kind: 'Service', id: svc.id }, to: { kind: 'Server', id: d.serverId }, label: null });
    }
  }
  return [...out.values()];
}

/**
 * Where each node's top left corner goes and each edge's route: the saved layout when it places
 * every node (edges then straight, as drawn by hand), else dagre's, left to right.
 */
function place(t: Topology, edges: Edge[]): { at: Map<string, Point>; routes: Map<string, Point[]> } {
  const at = new Map<string, Point>();
  const routes = new Map<string, Point[]>();
  const known = new Set(t.nodes.map(keyOf));
  const drawn = edges.filter((e) => known.has(keyOf(e.from)) && known.has(keyOf(e.to)));
  if (t.nodes.every((n) => t.layout.nodes[keyOf(n)])) {
    for (const n of t.nodes) at.set(keyOf(n), t.layout.nodes[keyOf(n)]!);
    for (const e of drawn) {
      const a = at.get(keyOf(e.from))!, b = at.get(keyOf(e.to))!;
      routes.set(e.id, [{ x: a.x + W, y: a.y + H / 2 }, { x: b.x, y: b.y + H / 2 }]);
    }
    return { at, routes };
  }
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: RANKSEP, edgesep: 12, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of t.nodes) g.setNode(keyOf(n), { width: W, height: H });
  for (const e of drawn) if (keyOf(e.from) !== keyOf(e.to)) g.setEdge(keyOf(e.from), keyOf(e.to), {}, e.id);
  dagre.layout(g);
  for (const n of t.nodes) {
    const p = g.node(keyOf(n));
    at.set(keyOf(n), { x: p.x - W / 2, y: p.y - H / 2 });
  }
  const columns = [...new Set([...at.values()].map((p) => p.x))];
  drawn.forEach((e, i) => {
    if (keyOf(e.from) === keyOf(e.to)) return;
    const points: Point[] | undefined = g.edge({ v: keyOf(e.from), w: keyOf(e.to), name: e.id })?.points;
    // each edge's vertical runs at its own x in the gap, so edges going apart stay told apart
    const lane = ((i + 1) / (drawn.length + 1) - 0.5) * (RANKSEP - 16);
    if (points) routes.set(e.id, orthogonal(at.get(keyOf(e.from))!, at.get(keyOf(e.to))!, points.slice(1, -1), columns, lane));
  });
  return { at, routes };
}

/**
 * dagre's route of an edge made of horizontal and vertical runs: dagre's own points between two
 * ranks are straight lines that may cut a box of the column they reach. Its inner points lie in
 * the gaps between the columns of boxes (or in space kept free inside one): from a point in a
 * column the route runs sideways first, from one in a gap up or down first, so a vertical run is
 * only ever in a gap and a horizontal one at a height dagre kept free.
 */
function orthogonal(from: Point, to: Point, inner: Point[], columns: number[], lane: number): Point[] {
  const inColumn = (x: number) => columns.some((c) => x >= c - 0.5 && x <= c + W + 0.5);
  /** The middle of the gap between columns that x is in, moved by the edge's lane. */
  const gapX = (x: number) => {
    const left = Math.max(...columns.map((c) => c + W).filter((r) => r <= x), -Infinity);
    const right = Math.min(...columns.filter((c) => c >= x), Infinity);
    return (Number.isFinite(left) && Number.isFinite(right) ? (left + right) / 2 : x) + lane;
  };
  const forward = to.x >= from.x;
  const start = { x: forward ? from.x + W : from.x, y: from.y + H / 2 };
  const end = { x: forward ? to.x : to.x + W, y: to.y + H / 2 };
  // one vertical run per gap crossed; a point inside a column is a height dagre kept free there
  const anchors: Array<Point & { gap: boolean }> = [];
  for (const p of inner.length ? inner : [{ x: (start.x + end.x) / 2, y: start.y }]) {
    const gap = !inColumn(p.x);
    const last = anchors[anchors.length - 1];
    if (gap && last?.gap && Math.abs(gapX(p.x) - last.x) < 1) continue;
    anchors.push(gap ? { x: gapX(p.x), y: p.y, gap } : { ...p, gap });
  }
  if (!anchors.some((p) => p.gap)) anchors.unshift({ x: gapX((start.x + end.x) / 2), y: start.y, gap: true });
  const out: Point[] = [start];
  let fromGap = false;
  for (const b of [...anchors, { ...end, gap: false }]) {
    const a = out[out.length - 1]!;
    if (b.gap) out.push({ x: b.x, y: a.y }); // sideways into the gap, at the height we are at
    else out.push(fromGap ? { x: a.x, y: b.y } : { x: b.x, y: a.y }, { x: b.x, y: b.y });
    fromGap = b.gap;
  }
  return out.filter((p, i) => i === 0 || p.x !== out[i - 1]!.x || p.y !== out[i - 1]!.y);
}

export function TopologyPage({ params }: { params: Record<string, string> }) {
  const { envId } = params;
  const data = useLoad(async (signal) => {
    const [topology, text, overview] = await Promise.all([
      get<Topology>(`/api/environments/${envId}/topology`, signal), mermaid(envId, signal), get(`/api/environments/${envId}/overview`, signal),
    ]);
    return { topology, text, placed: placements(overview) };
  }, [envId]);
  if (data.error) return <ErrorNote error={data.error} />;
  if (!data.data) return <p role="status">Loading…</p>;
  const { topology: t, text, placed } = data.data;
  if (!t.nodes.length) return <p>Nothing in this environment yet.</p>;
  const { at, routes } = place(t, [...t.edges, ...placed]);
  const name = new Map(t.nodes.map((n) => [keyOf(n), n.name]));
  const xs = [...at.values()].map((p) => p.x), ys = [...at.values()].map((p) => p.y);
  const [minX, minY] = [Math.min(...xs) - 20, Math.min(...ys) - 20];
  const [width, height] = [Math.max(...xs) + W + 20 - minX, Math.max(...ys) + H + 20 - minY];
  return (
    <div>
      <svg class="topology" role="img" aria-labelledby="topology-title" viewBox={`${minX} ${minY} ${width} ${height}`} width={width} height={height}>
        <title id="topology-title">Topology diagram: {t.nodes.length} nodes, {t.edges.length} links (listed below)</title>
        <defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" /></marker></defs>
        {[...t.edges, ...placed].map((e) => {
          // a route of straight segments; the arrow on the last one
          const r = routes.get(e.id);
          return r && (
            <g data-edge={e.id} data-kind={e.kind}>
              {r.slice(1).map((b, i) => <line class={`edge ${e.kind}`} x1={r[i]!.x} y1={r[i]!.y} x2={b.x} y2={b.y} {...(i === r.length - 2 ? { 'marker-end': 'url(#arrow)' } : {})} />)}
            </g>
          );
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

      <h2>Placement</h2>
      {placed.length ? (
        <ul class="plain" data-testid="topology-placements">
          {placed.map((e) => <li>{name.get(keyOf(e.from)) ?? e.from.id} runs on {name.get(keyOf(e.to)) ?? e.to.id}</li>)}
        </ul>
      ) : <p>No service is deployed on a server yet.</p>}

      <h2>Mermaid export</h2>
      <pre tabIndex={0} aria-label="Mermaid flowchart">{text}</pre>
    </div>
  );
}
