// Docker create options for direct mode, from the desired container only: every field the spec
// decides is set here, so a change to any of them reaches the container on the next recreate.
import type Docker from 'dockerode';
import type { DesiredContainer } from '../model/desired-container.js';
import { fileMounts } from './compose/generate-compose.js';
import { DEFAULT_RESTART_POLICY, dockerRestartPolicy } from '../model/restart-policy.js';

const NS = 1e9;

export function createOptionsOf(d: DesiredContainer): Docker.ContainerCreateOptions {
  const exposed: Record<string, object> = {};
  const bindings: Record<string, Array<{ HostIp?: string; HostPort: string }>> = {};
  for (const p of d.ports ?? []) {
    const c = p.lastIndexOf(':');
    const h = p.lastIndexOf(':', c - 1);
    const [ip, hostPort, key] = [p.slice(0, h), p.slice(h + 1, c), p.slice(c + 1)];
    exposed[key] = {};
    (bindings[key] ??= []).push({ ...(ip && { HostIp: ip }), HostPort: hostPort });
  }
  const h = d.healthcheck;
  return {
    name: d.containerName,
    Image: d.image,
    // one array element per variable: the value reaches the container byte for byte
    Env: Object.entries(d.env ?? {}).map(([k, v]) => `${k}=${v}`),
    Labels: d.labels,
    ExposedPorts: exposed,
    ...(d.command && { Cmd: d.command }),
    ...(h && { Healthcheck: { Test: h.test, Interval: h.intervalSec * NS, Timeout: h.timeoutSec * NS, Retries: h.retries, StartPeriod: h.startPeriodSec * NS } }),
    HostConfig: {
      PortBindings: bindings,
      Binds: [...d.volumes ?? [], ...fileMounts(d)],
      RestartPolicy: dockerRestartPolicy(d.restart ?? DEFAULT_RESTART_POLICY),
    },
  };
}
