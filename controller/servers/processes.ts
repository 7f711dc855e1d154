// Process snapshot: procps `ps` with fixed columns and no headers; args last because it is the
// only column that may contain spaces. Parsing is pure and unit-tested.
export const PS_ARGV = ['ps', '-eww', '-o', 'pid=,ppid=,user:32=,pcpu=,pmem=,rss=,etimes=,stat=,args='];

export interface ProcessInfo {
  pid: number;
  ppid: number;
  user: string;
  cpuPercent: number;
  memPercent: number;
  rssKb: number;
  elapsedSec: number;
  state: string;
  command: string;
}

export function parseProcesses(stdout: string): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m) continue;
    out.push({
      pid: Number(m[1]), ppid: Number(m[2]), user: m[3]!, cpuPercent: Number(m[4]), memPercent: Number(m[5]),
      rssKb: Number(m[6]), elapsedSec: Number(m[7]), state: m[8]!, command: m[9]!.trimEnd(),
    });
  }
  return out;
}
