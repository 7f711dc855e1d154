// A desired container and its matching observation, for the pure reconciler tests.
import { renderDesired, type DesiredInput } from '../../../../reconcilers/deployment/desired.js';
import { missing, type ObservedContainer } from '../../../../reconcilers/deployment/observe.js';

export const KEY = Buffer.from('test hash key');

export function input(over: Partial<DesiredInput> = {}, service: Partial<DesiredInput['service']> = {}): DesiredInput {
  return {
    service: {
      id: 'svc-1', name: 'web', environmentId: 'env-1', env: { GREETING: 'hello ${NAME}', TOKEN: '${API_TOKEN}' },
      ports: ['127.0.0.1:8080:80', '9000:9000/udp'], volumes: ['/data:/data'], command: null,
      healthCheck: { test: ['CMD', 'true'], intervalSec: 2 }, composeTemplate: null, ...service,
    },
    deployment: { id: 'dep-1', containerName: 'web-1', serverId: 'srv-1' },
    serverName: 's1', imageName: 'reg:5000/acme/web', imageTag: 'v1', mode: 'direct',
    sources: { vars: { NAME: 'world' }, secrets: { API_TOKEN: 's3cret' } },
    files: [{ attachmentId: 'att-1', configFileName: 'app.conf', targetPath: '/etc/web/app.conf', mode: 0o644, content: Buffer.from('listen 80\n') }],
    hashKey: KEY, ...over,
  };
}

export const desired = (over: Partial<DesiredInput> = {}, service: Partial<DesiredInput['service']> = {}) => renderDesired(input(over, service));

/** What Docker would report for a container created from `d`. */
export function observedOf(d: ReturnType<typeof desired>): ObservedContainer {
  return {
    ...missing(), exists: true, id: 'c1', running: true, state: 'running', health: 'healthy',
    owner: { managed: true, environmentId: d.environmentId, environmentName: null, serviceId: d.serviceId, deploymentId: d.deploymentId },
    specHash: d.specHash, image: d.image, imageId: 'sha256:aaa', env: { PATH: '/bin', ...d.env },
    ports: [...d.ports!], mounts: ['/data:/data', ...d.files.map((f) => `${f.hostPath}:${f.targetPath}:ro`), '/var/lib/x'].sort(),
    command: ['sh'], restart: d.restart ?? 'unless-stopped', healthcheckTest: d.healthcheck?.test ?? null,
    files: Object.fromEntries(d.files.map((f) => [f.hostPath, f.contentHash])),
  };
}
