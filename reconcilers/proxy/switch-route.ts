// The traffic switch's one step on the proxy (reconcilers/deployment/effects/proxy-switch.ts):
// once the new container of a deployment is healthy, the server's route table is reconciled now
// (the table picks the newest healthy container) until the proxy's live config is observed
// forwarding the service's routes to it. Only then may the old container be drained and stopped.
import { messageOf } from '../../controller/deploy/message-of.js';
import { reconcileProxy, type ProxyServices } from './reconcile-proxy.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves with how long it took once the proxy routes `serviceId` to `containerId`; throws after `timeoutMs`. */
export async function routeTo(s: ProxyServices, serverId: string, serviceId: string, containerId: string, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  let last = 'the proxy was not asked yet';
  for (;;) {
    try {
      const seen = await reconcileProxy(s, serverId);
      const upstream = seen.routes?.upstreams.get(serviceId);
      if (!seen.problem && upstream && 'containerId' in upstream && upstream.containerId === containerId) return Date.now() - started;
      last = seen.problem ?? (upstream && 'problem' in upstream ? upstream.problem : `the route forwards to ${upstream && 'containerName' in upstream ? upstream.containerName : 'nothing'}`);
    } catch (e) {
      last = messageOf(e);
    }
    if (Date.now() - started > timeoutMs) throw new Error(`the proxy did not route to the new container within ${Math.round(timeoutMs / 1000)} s: ${last}`);
    await sleep(200);
  }
}
