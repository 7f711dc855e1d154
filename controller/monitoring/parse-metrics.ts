// The pure half of SSH collection: the output of hosts/commands/metrics.ts readMetrics() in,
// the metrics of a ServerSample out. A section that is missing or unreadable leaves its metrics
// absent (never zero); metrics whose toggle is off are never set.
import { SECTION_MARKER, type MetricsSection } from '../hosts/commands/metrics.js';
import type { ContainerSample, ServerSample } from './server-sample.js';
import type { MetricsToggles } from './metrics-toggles.js';

export type SampleValues = Omit<ServerSample, 'serverId' | 'at' | 'source'>;

/** Cumulative CPU counters of /proc/stat's first line, in jiffies. */
export interface CpuReading { total: number; idle: number }

export interface ParsedMetrics {
  values: SampleValues;
  /** Kept by the collector: the next reading's cpuPercent is the delta against this one. */
  cpu?: CpuReading;
}

export function splitSections(stdout: string): Map<MetricsSection | 'stat0', string> {
  const out = new Map<MetricsSection | 'stat0', string>();
  let current: MetricsSection | 'stat0' | null = null;
  let lines: string[] = [];
  const flush = () => { if (current) out.set(current, lines.join('\n')); };
  for (const line of stdout.split('\n')) {
    if (line.startsWith(SECTION_MARKER)) {
      flush();
      current = line.slice(SECTION_MARKER.length).trim() as MetricsSection | 'stat0';
      lines = [];
    } else if (current) {
      lines.push(line);
    }
  }
  flush();
  return out;
}

export function parseCpuReading(text: string): CpuReading | undefined {
  const line = text.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) return undefined;
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 4 || f.some((n) => !Number.isFinite(n))) return undefined;
  const idle = f[3]! + (f[4] ?? 0);
  return { total: f.reduce((a, b) => a + b, 0), idle };
}

/** Busy share of all cores between two readings, 0–100; undefined without a usable earlier reading. */
export function cpuPercentBetween(prev: CpuReading | undefined, cur: CpuReading): number | undefined {
  if (!prev) return undefined;
  const dTotal = cur.total - prev.total;
  const dIdle = cur.idle - prev.idle;
  if (dTotal <= 0 || dIdle < 0) return undefined; // counters reset (reboot) or no time passed
  return Math.min(100, Math.max(0, Math.round((1 - dIdle / dTotal) * 10_000) / 100));
}

function meminfo(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    const r = /^(\w+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (r) m.set(r[1]!, Number(r[2]) * (line.includes('kB') ? 1024 : 1));
  }
  return m;
}

/** Established sockets in /proc/net/tcp{,6}: the 4th column (st) is 01. */
export function countEstablished(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (/^\d+:$/.test(cols[0] ?? '') && cols[3] === '01') n++;
  }
  return n;
}

const UNITS: Record<string, number> = {
  b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4,
};

/** "12.5MiB" → bytes (docker stats' human sizes). */
export function parseSize(text: string): number | undefined {
  const r = /^\s*([\d.]+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!r) return undefined;
  const unit = UNITS[(r[2] || 'b').toLowerCase()];
  return unit === undefined ? undefined : Math.round(Number(r[1]) * unit);
}

export function parseDockerStats(text: string): ContainerSample[] {
  const out: ContainerSample[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      const j = JSON.parse(line) as { Name?: string; CPUPerc?: string; MemUsage?: string };
      const [used, limit] = (j.MemUsage ?? '').split('/').map((p) => parseSize(p));
      const cpu = Number.parseFloat((j.CPUPerc ?? '').replace('%', ''));
      // docker prints the name `--` for a container it could not read (being created or removed):
      // that row observed nothing, so it is not reported as a container using nothing
      if (!j.Name || j.Name === '--' || !Number.isFinite(cpu) || used === undefined || limit === undefined) continue;
      out.push({ name: j.Name, cpuPercent: cpu, memoryUsedBytes: used, memoryLimitBytes: limit });
    } catch { /* a line docker cut short: skip it */ }
  }
  return out;
}

export function parseMetrics(stdout: string, toggles: MetricsToggles, previousCpu?: CpuReading): ParsedMetrics {
  const s = splitSections(stdout);
  const v: SampleValues = {};
  const result: ParsedMetrics = { values: v };
  const num = (x: string | undefined) => (x !== undefined && x !== '' && Number.isFinite(Number(x)) ? Number(x) : undefined);
  const set = <K extends keyof SampleValues>(k: K, x: SampleValues[K] | undefined) => { if (x !== undefined) v[k] = x; };

  if (toggles.collectCpu && s.has('stat')) {
    const cur = parseCpuReading(s.get('stat')!);
    if (cur) {
      result.cpu = cur;
      // the first sample of a server: its own earlier reading (readMetrics firstCpu)
      const before = previousCpu ?? (s.has('stat0') ? parseCpuReading(s.get('stat0')!) : undefined);
      set('cpuPercent', cpuPercentBetween(before, cur));
    }
  }
  if (s.has('meminfo')) {
    const m = meminfo(s.get('meminfo')!);
    const total = m.get('MemTotal');
    const available = m.get('MemAvailable');
    if (toggles.collectMemory && total !== undefined && available !== undefined) {
      set('memoryTotalBytes', total);
      set('memoryUsedBytes', total - available);
    }
    const swapTotal = m.get('SwapTotal');
    const swapFree = m.get('SwapFree');
    if (toggles.collectSwap && swapTotal !== undefined && swapFree !== undefined) {
      set('swapTotalBytes', swapTotal);
      set('swapUsedBytes', swapTotal - swapFree);
    }
  }
  if (toggles.collectLoad && s.has('loadavg')) {
    const [l1, l5, l15] = s.get('loadavg')!.trim().split(/\s+/);
    if (num(l1) !== undefined && num(l5) !== undefined && num(l15) !== undefined) {
      set('load1', num(l1)); set('load5', num(l5)); set('load15', num(l15));
    }
  }
  if (toggles.collectFds && s.has('filenr')) set('openFds', num(s.get('filenr')!.trim().split(/\s+/)[0]));
  if (toggles.collectTcp && s.has('tcp')) set('tcpConnections', countEstablished(s.get('tcp')!) + countEstablished(s.get('tcp6') ?? ''));
  if (toggles.collectProcesses && s.has('proc')) {
    const n = s.get('proc')!.split('\n').filter((l) => /^\d+$/.test(l.trim())).length;
    if (n > 0) set('processes', n);
  }
  if (toggles.collectDisk && s.has('df')) {
    // Filesystem 1024-blocks Used Available Capacity Mounted-on
    const line = s.get('df')!.trim().split('\n').slice(1).join(' ');
    const cols = line.trim().split(/\s+/);
    const total = num(cols[1]);
    const used = num(cols[2]);
    if (total !== undefined && used !== undefined) {
      set('diskTotalBytes', total * 1024);
      set('diskUsedBytes', used * 1024);
    }
  }
  if ((toggles.collectCpu || toggles.collectMemory) && s.has('dockerstats')) v.containers = parseDockerStats(s.get('dockerstats')!);
  return result;
}
