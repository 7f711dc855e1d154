// The hosts the services of a manifests apply claim (controller/model/ingress.ts): checked against
// every other service this apply leaves in the store, and against each other, so a refused host
// names its file and line and nothing is applied. The API's writes meet the same rule
// (controller/ingress/claims.ts).
import { claimConflict, type Ingress, type IngressClaim } from '../model/ingress.js';
import type { ObjectState } from './state.js';
import type { Manifest, ManifestError } from './types.js';

const claimOf = (environment: string, name: string, ingress: Ingress): IngressClaim =>
  // manifests know environments by name: the name stands for the id on both sides
  ({ environmentId: environment, environmentName: environment, serviceId: null, serviceName: name, ingress });

export function ingressClaimErrors(manifests: Manifest[], desired: ObjectState[], stored: ObjectState[]): ManifestError[] {
  const key = (o: { environment?: string; name: string }) => `${o.environment}/${o.name}`;
  const applied = new Set(desired.filter((o) => o.kind === 'Service').map(key));
  const claims = [...stored.filter((o) => o.kind === 'Service' && !applied.has(key(o))), ...desired.filter((o) => o.kind === 'Service')]
    .filter((o) => o.environment && o.fields.ingress)
    .map((o) => claimOf(o.environment!, o.name, o.fields.ingress as Ingress));
  const errors: ManifestError[] = [];
  for (const m of manifests) {
    const ingress = (m.spec as { ingress?: Ingress | null }).ingress;
    if (m.kind !== 'Service' || !m.metadata.environment || !ingress) continue;
    const problem = claimConflict(claimOf(m.metadata.environment, m.metadata.name, ingress), claims);
    if (!problem) continue;
    const path = ['spec', ...problem.field.split('.')];
    errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message: problem.message });
  }
  return errors;
}
