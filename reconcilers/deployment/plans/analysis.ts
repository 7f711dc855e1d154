// The analysis between two waves of a rollout (docs/progressive-delivery.md): for durationSec the
// new containers of the service (every wave so far) are looked at once a second: Docker health,
// running and restarts (docker inspect over the pooled connection), an optional HTTP GET made from
// their server (a direct-tcpip channel of the same connection, as the TCP checks do), and metric
// ceilings over the monitoring samples taken in the window. The first failure ends it and names
// the check and the figure; the verdicts themselves are pure (analysis-verdict.ts).
import type { Services } from '../../../controller/services.js';
import type { Analysis } from '../../../controller/model/rollout.js';
import type { AnalysisRecord } from '../../../controller/model/plan-waves.js';
import { messageOf } from '../../../controller/deploy/message-of.js';
import {
  containerVerdict, httpVerdict, metricVerdict, missingSamples, type AnalysisFailure, type ContainerSampleValues,
} from './analysis-verdict.js';

export interface AnalysisTarget { serverId: string; containerName: string; /** How messages name it (the server's name). */ label: string }

const TICK_MS = 1000;
const HTTP_TIMEOUT_MS = 3000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an analysis checks, in words (the plan's read lists them). */
export function checksOf(a: Analysis): string[] {
  return [
    ...(a.healthChecks === false ? [] : [`health, restarts <= ${a.maxRestarts ?? 0}`]),
    ...(a.httpGet ? [`httpGet :${a.httpGet.port}${a.httpGet.path} = ${a.httpGet.expectStatus ?? 200}`] : []),
    ...(a.metrics ?? []).map((m) => `${m.name} <= ${m.max}`),
  ];
}

/** One HTTP/1.0 GET over a TCP connection opened from the server: the status, or why there is none. */
async function httpGet(s: Pick<Services, 'hosts' | 'logger' | 'serverSamples'>, serverId: string, host: string, port: number, path: string): Promise<{ status: number } | { error: string }> {
  let conn: Awaited<ReturnType<Services['hosts']['connectTcp']>> | undefined;
  try {
    conn = await Promise.race([
      s.hosts.connectTcp(serverId, host, port),
      sleep(HTTP_TIMEOUT_MS).then(() => { throw new Error(`no connection within ${HTTP_TIMEOUT_MS} ms`); }),
    ]);
    const stream = conn.stream;
    const head = await new Promise<string>((resolve, reject) => {
      let got = '';
      const timer = setTimeout(() => reject(new Error(`no answer within ${HTTP_TIMEOUT_MS} ms`)), HTTP_TIMEOUT_MS);
      stream.on('data', (chunk: Buffer) => {
        got += chunk.toString('latin1');
        if (got.includes('\r\n') || got.length > 4096) { clearTimeout(timer); resolve(got); }
      });
      stream.once('error', (e: Error) => { clearTimeout(timer); reject(e); });
      stream.once('end', () => { clearTimeout(timer); resolve(got); });
      stream.write(`GET ${path} HTTP/1.0\r\nHost: ${host}:${port}\r\nUser-Agent: stevedore-analysis\r\nConnection: close\r\n\r\n`);
    });
    const m = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head);
    return m ? { status: Number(m[1]) } : { error: 'the answer is not HTTP' };
  } catch (e) {
    return { error: messageOf(e) };
  } finally {
    conn?.close();
  }
}

/** One look at a container: inspect, then the HTTP probe at its address on its network. */
async function lookAt(s: Pick<Services, 'hosts' | 'logger' | 'serverSamples'>, t: AnalysisTarget, a: Analysis, now: Date): Promise<AnalysisFailure | null> {
  const docker = await s.hosts.docker(t.serverId);
  const c = await docker.getContainer(t.containerName).inspect().catch(() => null);
  if (!c) return { check: 'running', target: t.label, figure: null, message: `${t.label}: the container ${t.containerName} is gone` };
  const failure = containerVerdict({
    target: t.label, running: !!c.State.Running, exitCode: c.State.ExitCode ?? null, health: c.State.Health?.Status ?? null,
    restartCount: c.RestartCount ?? 0, startedAt: c.State.StartedAt ? new Date(c.State.StartedAt) : null,
  }, a, now);
  if (failure || !a.httpGet) return failure;
  const ip = Object.values(c.NetworkSettings?.Networks ?? {}).map((n) => n?.IPAddress).find((x) => !!x) ?? '127.0.0.1';
  return httpVerdict(t.label, a.httpGet, await httpGet(s, t.serverId, ip, a.httpGet.port, a.httpGet.path));
}

/** The metric samples of each target taken since `since`, by target label. */
async function samplesOf(s: Pick<Services, 'hosts' | 'logger' | 'serverSamples'>, targets: AnalysisTarget[], since: Date): Promise<Map<string, ContainerSampleValues[]>> {
  const rows = await s.serverSamples.containerSamplesSince([...new Set(targets.map((t) => t.serverId))], since);
  const out = new Map<string, ContainerSampleValues[]>(targets.map((t) => [t.label, []]));
  for (const r of rows) {
    for (const t of targets.filter((x) => x.serverId === r.serverId)) {
      const sample = r.containers.find((c) => c.name === t.containerName || c.name === `/${t.containerName}`);
      if (sample) out.get(t.label)!.push(sample);
    }
  }
  return out;
}

/**
 * Watches the targets for `durationSec` (ending early at the first failure or when `stillWanted`
 * says the plan stopped). `record` gets the record as it goes (running, then its verdict).
 */
export async function runAnalysis(s: Pick<Services, 'hosts' | 'logger' | 'serverSamples'>, wave: number, a: Analysis, targets: AnalysisTarget[],
  stillWanted: () => Promise<boolean>, record: (r: AnalysisRecord) => Promise<void>): Promise<AnalysisRecord | 'stopped'> {
  const started = new Date();
  const r: AnalysisRecord = { wave, startedAt: started.toISOString(), finishedAt: null, verdict: 'running', checks: checksOf(a), targets: targets.map((t) => t.label), failure: null };
  await record(r);
  const deadline = started.getTime() + a.durationSec * 1000;
  const ceilings = a.metrics ?? [];
  const end = async (failure: AnalysisFailure | null) => {
    const done: AnalysisRecord = { ...r, finishedAt: new Date().toISOString(), verdict: failure ? 'failed' : 'passed', failure };
    await record(done);
    return done;
  };
  for (;;) {
    const tickStarted = Date.now();
    if (!(await stillWanted())) return 'stopped';
    for (const t of targets) {
      let failure: AnalysisFailure | null;
      try {
        failure = await lookAt(s, t, a, new Date());
      } catch (e) {
        // the server could not be asked: not a verdict on the version; asked again next tick
        s.logger.warn('analysis: could not look at a container', { container: t.containerName, error: messageOf(e) });
        failure = null;
      }
      if (failure) return end(failure);
    }
    if (ceilings.length) {
      const samples = await samplesOf(s, targets, started);
      for (const t of targets) {
        const failure = metricVerdict(t.label, ceilings, samples.get(t.label)!);
        if (failure) return end(failure);
      }
      if (Date.now() >= deadline) {
        for (const t of targets) {
          const failure = missingSamples(t.label, ceilings, samples.get(t.label)!, a.durationSec);
          if (failure) return end(failure);
        }
      }
    }
    if (Date.now() >= deadline) return end(null);
    await sleep(Math.max(0, Math.min(TICK_MS - (Date.now() - tickStarted), deadline - Date.now())));
  }
}
