import { expect } from 'chai';
import { readMetrics, SECTION_MARKER } from '../../../controller/hosts/commands/metrics.js';
import { sectionsFor, togglesOf } from '../../../controller/monitoring/metrics-toggles.js';
import { cpuPercentBetween, parseCpuReading, parseMetrics, parseSize } from '../../../controller/monitoring/parse-metrics.js';

const section = (name: string, body: string) => `${SECTION_MARKER}${name}\n${body}\n`;
const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7148797 1 0 100 0 0 10 0
   1: 0100007F:0016 0100007F:D3A4 01 00000000:00000000 02:000A8B2B 00000000     0        0 7150302 2 0 20 4 30 10 -1
   2: 0100007F:D3A4 0100007F:0016 01 00000000:00000000 02:000A8B2B 00000000     0        0 7150303 2 0 20 4 30 10 -1`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:A1B2 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1`;
const OUTPUT = [
  section('stat', 'cpu  200 0 100 1600 100 0 0 0 0 0'),
  section('meminfo', 'MemTotal:        4000000 kB\nMemFree:          500000 kB\nMemAvailable:    3000000 kB\nSwapTotal:       1000000 kB\nSwapFree:         750000 kB'),
  section('loadavg', '0.52 0.41 0.30 2/345 12345'),
  section('filenr', '2304\t0\t9223372036854775807'),
  section('tcp', TCP),
  section('tcp6', TCP6),
  section('proc', '1\n27\n312\nacpi\nbuddyinfo\ncpuinfo\nself'),
  section('df', 'Filesystem     1024-blocks     Used Available Capacity Mounted on\n/dev/sda1         10000000  4000000   6000000      40% /'),
  section('dockerstats', [
    '{"BlockIO":"0B / 0B","CPUPerc":"12.50%","Container":"abc","ID":"abc","MemPerc":"1.00%","MemUsage":"12.5MiB / 1.5GiB","Name":"web-1","NetIO":"1kB / 2kB","PIDs":"3"}',
    '{"CPUPerc":"0.00%","MemUsage":"0B / 0B","Name":"stopped-ish"}',
    '{"BlockIO":"--","CPUPerc":"0.00%","Container":"def","ID":"def","MemPerc":"0.00%","MemUsage":"0B / 0B","Name":"--","NetIO":"--","PIDs":"0"}',
  ].join('\n')),
].join('');
const all = togglesOf(undefined);

describe('metrics parser (ssh collection)', () => {
  it('reads every metric of the batched output', () => {
    const prev = { total: 1000, idle: 850 };
    const { values, cpu } = parseMetrics(OUTPUT, all, prev);
    expect(cpu).to.deep.equal({ total: 2000, idle: 1700 });
    // 1000 jiffies passed, 850 of them idle
    expect(values.cpuPercent).to.equal(15);
    expect(values).to.deep.include({
      memoryTotalBytes: 4_000_000 * 1024, memoryUsedBytes: 1_000_000 * 1024,
      swapTotalBytes: 1_000_000 * 1024, swapUsedBytes: 250_000 * 1024,
      load1: 0.52, load5: 0.41, load15: 0.3, openFds: 2304, tcpConnections: 3, processes: 3,
      diskTotalBytes: 10_000_000 * 1024, diskUsedBytes: 4_000_000 * 1024,
    });
    expect(values.containers).to.deep.equal([
      { name: 'web-1', cpuPercent: 12.5, memoryUsedBytes: Math.round(12.5 * 1024 ** 2), memoryLimitBytes: Math.round(1.5 * 1024 ** 3) },
      { name: 'stopped-ish', cpuPercent: 0, memoryUsedBytes: 0, memoryLimitBytes: 0 },
    ]); // and not docker's `--` row of a container it could not read
  });

  it('leaves cpu absent on the first reading and after a counter reset', () => {
    expect(parseMetrics(OUTPUT, all).values).to.not.have.property('cpuPercent');
    const cur = parseCpuReading('cpu  10 0 10 100 0 0 0 0 0 0')!;
    expect(cpuPercentBetween({ total: 5000, idle: 4000 }, cur)).to.equal(undefined);
    expect(cpuPercentBetween(cur, cur)).to.equal(undefined);
  });

  it('sets nothing a toggle turned off, even from a section read for another metric', () => {
    const t = { ...all, collectSwap: false, collectTcp: false, collectCpu: false };
    const { values, cpu } = parseMetrics(OUTPUT, t, { total: 1000, idle: 850 });
    expect(cpu).to.equal(undefined);
    for (const k of ['swapTotalBytes', 'swapUsedBytes', 'tcpConnections', 'cpuPercent']) expect(values).to.not.have.property(k);
    expect(values.memoryUsedBytes).to.equal(1_000_000 * 1024);
    expect(values.containers).to.have.length(2); // memory still wants the containers' memory
  });

  it('leaves a metric absent when its section is missing or garbled, and keeps the others', () => {
    const out = section('loadavg', 'garbage') + section('filenr', '') + section('df', 'df: /nope: No such file or directory');
    const { values } = parseMetrics(out, all);
    expect(values).to.deep.equal({});
  });

  it('reads only the sections the toggles ask for, as one sh -c of quoted argv', () => {
    const t = { ...togglesOf({ collectCpu: false, collectMemory: false, collectTcp: false }) };
    expect(sectionsFor(t)).to.deep.equal(['meminfo', 'loadavg', 'filenr', 'proc', 'df']);
    const argv = readMetrics(['loadavg', 'df', 'dockerstats'], "/var/lib/my docker");
    expect(argv.slice(0, 2)).to.deep.equal(['sh', '-c']);
    expect(argv[2]).to.equal(
      `echo '${SECTION_MARKER}loadavg' ; cat /proc/loadavg ; echo '${SECTION_MARKER}df' ; df -P -k -- '/var/lib/my docker' ; ` +
      `echo '${SECTION_MARKER}dockerstats' ; docker stats --no-stream --no-trunc --format '{{json .}}'`);
  });

  it('the first sample of a server reads /proc/stat before the other sections and again last, and carries CPU from the two', () => {
    const argv = readMetrics(['stat', 'meminfo'], '/var/lib/docker', { firstCpu: true });
    expect(argv[2]).to.equal(
      `echo '${SECTION_MARKER}stat0' ; head -n 1 /proc/stat ; sleep 0.5 ; echo '${SECTION_MARKER}meminfo' ; cat /proc/meminfo ; ` +
      `echo '${SECTION_MARKER}stat' ; head -n 1 /proc/stat`);
    // without CPU collection there is nothing to read twice
    expect(readMetrics(['meminfo'], '/d', { firstCpu: true })[2]).to.equal(`echo '${SECTION_MARKER}meminfo' ; cat /proc/meminfo`);
    // 100 jiffies passed, 25 of them idle: 75 % busy
    const out = section('stat0', 'cpu  100 0 0 1000 0 0 0 0 0 0') + section('stat', 'cpu  175 0 0 1025 0 0 0 0 0 0');
    expect(parseMetrics(out, all).values.cpuPercent).to.equal(75);
    // a known earlier reading wins over stat0 (the interval since the last sample)
    expect(parseMetrics(out, all, { total: 1075, idle: 1000 }).values.cpuPercent).to.equal(
      cpuPercentBetween({ total: 1075, idle: 1000 }, parseCpuReading('cpu  175 0 0 1025 0 0 0 0 0 0')!));
  });

  it('converts docker sizes', () => {
    expect(parseSize('1.5GiB')).to.equal(1.5 * 1024 ** 3);
    expect(parseSize('2kB')).to.equal(2000);
    expect(parseSize('0B')).to.equal(0);
    expect(parseSize('12 parsecs')).to.equal(undefined);
  });
});

describe('metrics history (columnar, downsampled)', () => {
  it('keeps the asked step unless the range would exceed the point cap, and picks ~720 points by default', async () => {
    const { stepFor, columnarJson, MAX_POINTS } = await import('../../../controller/monitoring/history.js');
    const from = new Date('2026-11-19T00:00:00Z');
    const week = new Date('2026-11-26T00:00:00Z');
    expect(stepFor(from, week, 60)).to.equal(60); // 7 days at one minute: 10080 points
    expect(7 * 1440).to.equal(MAX_POINTS);
    expect(stepFor(from, week, 10)).to.equal(60);
    expect(stepFor(from, week)).to.equal(840);
    expect(stepFor(from, new Date('2026-11-19T01:00:00Z'))).to.equal(60);
    const { serverMetricNames } = await import('../../../controller/monitoring/server-sample.js');
    const values = Object.fromEntries(serverMetricNames.map((m) => [m, [null, null]])) as Record<string, Array<number | null>>;
    values.cpuPercent = [5, 7];
    values.memoryUsedBytes = [10, null];
    // the series text as PostgreSQL writes it (a space around each colon)
    const seriesJson = `{${serverMetricNames.map((m) => `"${m}" : ${JSON.stringify(values[m])}`).join(', ')}}`;
    const c = JSON.parse(columnarJson(from, week, 60, { buckets: [from.getTime() / 1000, from.getTime() / 1000 + 60], seriesJson }));
    expect(Object.keys(c)).to.deep.equal(['from', 'to', 'stepSec', 'timestamps', 'series']);
    expect(c.timestamps).to.deep.equal(['2026-11-19T00:00:00.000Z', '2026-11-19T00:01:00.000Z']);
    expect(c.series.cpuPercent).to.deep.equal([5, 7]);
    expect(c.series.memoryUsedBytes).to.deep.equal([10, null]);
    expect(c.series.load1).to.deep.equal([null, null]);
    expect(c).to.include({ from: from.toISOString(), to: week.toISOString(), stepSec: 60 });
  });

  it('writes bucket starts exactly as toISOString does, across days, years and in any order', async () => {
    const { isoOfWholeSeconds } = await import('../../../controller/monitoring/history.js');
    const secs = [Date.UTC(2026, 11, 31, 23, 59, 59) / 1000, Date.UTC(2027, 0, 1) / 1000, Date.UTC(2024, 1, 29, 12, 0, 7) / 1000, 0, 59, 86_399];
    for (let i = 0; i < 2000; i++) secs.push(Math.floor(Math.random() * 4_102_444_800));
    expect(isoOfWholeSeconds(secs)).to.deep.equal(secs.map((s) => new Date(s * 1000).toISOString()));
  });
});
