// Compose path rule 2, "restart directly": no compose file, so the new tag is applied through the
// Docker API. The existing container's configuration is kept (env, ports, volumes, labels,
// restart policy, networks) and only the image changes. The old container is renamed aside and
// stopped, not removed, until the new one is healthy; if the new one fails, the old one is put
// back and started, so a failed step leaves the previous version serving.
import type Docker from 'dockerode';

const isNotFound = (e: unknown) => (e as { statusCode?: number }).statusCode === 404;

async function inspectOrNull(docker: Docker, name: string) {
  try {
    return await docker.getContainer(name).inspect();
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

// Inspect merges the image's defaults into Config; copying them over would pin the old image's
// ENV, CMD and HEALTHCHECK onto the new one. Only what differs from the old image is the user's.
function userConfig(c: Docker.ContainerInspectInfo, oldImage: Docker.ImageInspectInfo | null) {
  const imageEnv = new Set(oldImage?.Config?.Env ?? []);
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  return {
    Env: (c.Config.Env ?? []).filter((e) => !imageEnv.has(e)),
    Cmd: same(c.Config.Cmd, oldImage?.Config?.Cmd) ? undefined : c.Config.Cmd,
    Entrypoint: same(c.Config.Entrypoint, oldImage?.Config?.Entrypoint) ? undefined : c.Config.Entrypoint,
    Healthcheck: same(c.Config.Healthcheck, (oldImage?.Config as { Healthcheck?: unknown } | undefined)?.Healthcheck) ? undefined : c.Config.Healthcheck,
  };
}

export interface DirectDeploy {
  containerName: string;
  image: string;
  /** Labels to set on top of the kept ones (ownership, tag, env hash). */
  labels: Record<string, string>;
  /** How to create the container when none exists yet (first deploy). */
  fresh: Docker.ContainerCreateOptions;
  /** Resolves when healthy, throws when not. */
  verify: () => Promise<void>;
  log: (l: string) => Promise<void>;
}

export async function recreateDirect(docker: Docker, d: DirectDeploy): Promise<void> {
  const aside = `${d.containerName}-stevedore-old`;
  let old = await inspectOrNull(docker, d.containerName);
  // a crash between "rename aside" and "new one created" leaves only the aside container: it is
  // still the deployment's container (and its configuration), so it becomes the old one again
  const leftAside = old ? null : await inspectOrNull(docker, aside);
  if (leftAside) {
    await docker.getContainer(leftAside.Id).rename({ name: d.containerName });
    await d.log(`found ${aside} left by an interrupted deploy; using it as the current container`);
    old = await inspectOrNull(docker, d.containerName);
  }
  let create: Docker.ContainerCreateOptions;
  if (!old) {
    create = { ...d.fresh, name: d.containerName, Image: d.image, Labels: { ...(d.fresh.Labels ?? {}), ...d.labels } };
  } else {
    const oldImage = await docker.getImage(old.Image).inspect().catch(() => null);
    const networks = Object.fromEntries(Object.entries(old.NetworkSettings.Networks ?? {}).map(([name, n]) => [name, {
      Aliases: (n.Aliases ?? []).filter((a: string) => a !== old.Id.slice(0, 12)), IPAMConfig: n.IPAMConfig ?? undefined,
    }]));
    create = {
      ...old.Config, ...userConfig(old, oldImage), name: d.containerName, Image: d.image, Hostname: undefined,
      Labels: { ...(old.Config.Labels ?? {}), ...d.labels },
      HostConfig: old.HostConfig, NetworkingConfig: { EndpointsConfig: networks },
    } as Docker.ContainerCreateOptions;
  }
  if (old) {
    await docker.getContainer(aside).remove({ force: true }).catch((e) => { if (!isNotFound(e)) throw e; });
    await docker.getContainer(old.Id).rename({ name: aside });
    await docker.getContainer(old.Id).stop({ t: 10 }).catch((e) => { if ((e as { statusCode?: number }).statusCode !== 304) throw e; });
    await d.log(`stopped the old container of ${d.containerName} (kept aside as ${aside})`);
  }
  let created: Docker.Container | null = null;
  try {
    created = await docker.createContainer(create);
    await created.start();
    await d.log(`started ${d.containerName} from ${d.image} through the Docker API`);
    await d.verify();
  } catch (e) {
    if (created) await created.remove({ force: true }).catch(() => undefined);
    if (old) {
      await docker.getContainer(old.Id).rename({ name: d.containerName }).catch(() => undefined);
      if (old.State.Running) await docker.getContainer(old.Id).start().catch(() => undefined);
      await d.log(`put the old container of ${d.containerName} back`);
    }
    throw e;
  }
  if (old) await docker.getContainer(old.Id).remove({ force: true }).catch(() => undefined);
}

/** Container create options from a service template, for a deployment's first direct deploy. */
export function freshCreateOptions(t: {
  env: Record<string, string>; ports: string[]; volumes: string[]; command: string[] | null;
  healthCheck: { test: string[]; intervalSec?: number; timeoutSec?: number; retries?: number; startPeriodSec?: number } | null;
}): Docker.ContainerCreateOptions {
  const exposed: Record<string, object> = {};
  const bindings: Record<string, Array<{ HostIp?: string; HostPort: string }>> = {};
  for (const p of t.ports) {
    const parts = p.split(':');
    const [containerPart, hostPort, hostIp] = [parts.at(-1)!, parts.at(-2) ?? '', parts.length > 2 ? parts.slice(0, -2).join(':') : undefined];
    const key = containerPart.includes('/') ? containerPart : `${containerPart}/tcp`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ ...(hostIp && { HostIp: hostIp }), HostPort: hostPort });
  }
  const s = 1e9;
  return {
    Env: Object.entries(t.env).map(([k, v]) => `${k}=${v}`),
    ExposedPorts: exposed,
    ...(t.command?.length && { Cmd: t.command }),
    ...(t.healthCheck && {
      Healthcheck: {
        Test: t.healthCheck.test, Interval: (t.healthCheck.intervalSec ?? 10) * s, Timeout: (t.healthCheck.timeoutSec ?? 5) * s,
        Retries: t.healthCheck.retries ?? 3, StartPeriod: (t.healthCheck.startPeriodSec ?? 0) * s,
      },
    }),
    HostConfig: { PortBindings: bindings, Binds: t.volumes, RestartPolicy: { Name: 'unless-stopped' } },
  };
}
