// The rows the looks of a batch of deployments need (service, image, server with its key, config
// attachments, their environment's operations settings, vars and secrets), read with one query
// per table for the whole batch instead of a few per look. They are read when the batch starts,
// as a look of its own reads them when it starts (a key added during the batch runs once more).
import type { Services } from '../../controller/services.js';
import type { DeploymentRow } from '../../controller/store/repositories/deployments.js';
import { envSourcesOf, type LookRows, type OperationsSettings } from './load-desired.js';

/** `operations`: the operations settings of the deployments' environments, read by the caller. */
export async function lookRowsOf(s: Pick<Services, 'services' | 'servers' | 'configStore' | 'containerImages'> & Parameters<typeof envSourcesOf>[0], deployments: DeploymentRow[], operations: Map<string, OperationsSettings>): Promise<Map<string, LookRows>> {
  if (!deployments.length) return new Map();
  const serviceIds = [...new Set(deployments.map((d) => d.serviceId))];
  const environments = [...new Set(deployments.map((d) => d.environmentId))];
  const [services, servers, attachments, sources] = await Promise.all([
    s.services.findByIds(serviceIds),
    s.servers.withEnvironmentKeys(deployments.map((d) => d.serverId)),
    s.configStore.attachments.forServices(serviceIds),
    Promise.all(environments.map(async (e) => [e, await envSourcesOf(s, e)] as const)).then((x) => new Map(x)),
  ]);
  const images = await s.containerImages.findByIds(services.flatMap((x) => (x.containerImageId ? [x.containerImageId] : [])));
  const service = new Map(services.map((x) => [x.id, x]));
  const image = new Map(images.map((x) => [x.id, x]));
  const server = new Map(servers.map((x) => [x.id, x]));
  // forServices orders by (createdAt, id): grouping keeps that order
  const attached = new Map<string, typeof attachments>();
  for (const a of attachments) attached.set(a.serviceId, [...attached.get(a.serviceId) ?? [], a]);
  return new Map(deployments.map((d) => {
    const svc = service.get(d.serviceId);
    return [d.id, {
      service: svc, image: svc?.containerImageId ? image.get(svc.containerImageId) : undefined, server: server.get(d.serverId),
      attachments: attached.get(d.serviceId) ?? [],
      operations: operations.get(d.environmentId)!, sources: sources.get(d.environmentId)!,
    }];
  }));
}
