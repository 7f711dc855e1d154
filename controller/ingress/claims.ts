// Which hosts a service may claim: the one check of the API's service writes
// (api/routes/catalog-checks.ts) and of manifest applies (controller/manifests/apply.ts), over
// every claim in the store (controller/model/ingress.ts decides).
import type { Services } from '../services.js';
import { conflict } from '../errors/app-error.js';
import { claimConflict, type IngressClaim } from '../model/ingress.js';

/** 409 naming the host when another service (this environment's on the same path, or any other environment's) serves it. */
export async function assertIngressClaim(s: Pick<Services, 'services'>, claim: IngressClaim): Promise<void> {
  const problem = claimConflict(claim, await s.services.listIngressClaims());
  if (problem) throw conflict(problem.message, 'Choose another host or path, or remove it from the other service first', problem.field);
}
