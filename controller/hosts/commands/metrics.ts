// The metrics read of one server as argv (Kamal style: data, run by the ssh-driver): every
// section the environment collects, in one `sh -c` over the pooled connection, each announced
// by a marker line so that one pure parser (monitoring/parse-metrics.ts) splits the output.
import { sequence } from './combine.js';
import type { Argv } from '../shell-quote.js';

export const SECTION_MARKER = '@@stevedore-section ';

export type MetricsSection = 'stat' | 'meminfo' | 'loadavg' | 'filenr' | 'tcp' | 'tcp6' | 'proc' | 'df' | 'dockerstats';

export function sectionCommand(section: MetricsSection, dockerRoot: string): Argv {
  switch (section) {
    case 'stat': return ['head', '-n', '1', '/proc/stat'];
    case 'meminfo': return ['cat', '/proc/meminfo'];
    case 'loadavg': return ['cat', '/proc/loadavg'];
    case 'filenr': return ['cat', '/proc/sys/fs/file-nr'];
    case 'tcp': return ['cat', '/proc/net/tcp'];
    case 'tcp6': return ['cat', '/proc/net/tcp6'];
    // one line per entry: the numeric ones are processes
    case 'proc': return ['ls', '-1', '/proc'];
    // POSIX output in 1024-byte blocks: the same columns on every df
    case 'df': return ['df', '-P', '-k', '--', dockerRoot];
    case 'dockerstats': return ['docker', 'stats', '--no-stream', '--no-trunc', '--format', '{{json .}}'];
  }
}

/** How far apart the two CPU readings of a server's first sample are (CPU is a share of an interval). */
export const FIRST_CPU_INTERVAL_SEC = 0.5;

/**
 * One command reading the given sections; a section that fails leaves the others be. `firstCpu`:
 * no earlier reading of the server is known, so /proc/stat is also read once before the other
 * sections (`stat0`), at least FIRST_CPU_INTERVAL_SEC earlier: the first sample carries CPU too.
 */
export function readMetrics(sections: MetricsSection[], dockerRoot: string, o: { firstCpu?: boolean } = {}): string[] {
  const before = o.firstCpu && sections.includes('stat')
    ? [['echo', `${SECTION_MARKER}stat0`], sectionCommand('stat', dockerRoot), ['sleep', String(FIRST_CPU_INTERVAL_SEC)]]
    : [];
  // with a reading before them, the other sections fill part of the interval; the current one comes last
  const ordered = before.length ? [...sections.filter((s) => s !== 'stat'), 'stat' as const] : sections;
  return sequence(...before, ...ordered.flatMap((s) => [['echo', `${SECTION_MARKER}${s}`], sectionCommand(s, dockerRoot)]));
}

/** Where Docker keeps its data (the disk metric is that filesystem's). */
export const dockerRootDir = (): string[] => ['docker', 'info', '--format', '{{.DockerRootDir}}'];
