// The container policy (controller/deploy/container-policy.ts) for the services of a manifests
// apply: each environment's policy is the one this apply leaves it with (an Environment manifest
// of the same apply may set it), and each refusal names the file and line, so nothing is applied.
import type { VolumeEntry } from '../model/volume-mount.js';
import { containerPolicyRefusals, policyOfSettings, requestOfSpec, type ContainerPolicy } from '../deploy/container-policy.js';
import { isAppError } from '../errors/app-error.js';
import type { ObjectState } from './state.js';
import type { Manifest, ManifestError } from './types.js';

const POLICY_FIELDS = ['containerPolicy', 'allowedHostPaths'] as const;

/** The policy of environment `name` after this apply: its manifest's settings over the stored ones. */
function policyOf(name: string, desired: ObjectState[], stored: ObjectState[], sensitive: ContainerPolicy['sensitivePaths']): ContainerPolicy {
  const fieldsOf = (list: ObjectState[]) => list.find((o) => o.kind === 'Environment' && o.name === name)?.fields ?? {};
  const [want, have] = [fieldsOf(desired), fieldsOf(stored)];
  const ops = Object.fromEntries(POLICY_FIELDS.map((f) => {
    const key = `settings.operations.${f}`;
    return [f, key in want ? want[key] : have[key]];
  }));
  return policyOfSettings(ops, sensitive);
}

export function containerPolicyErrors(manifests: Manifest[], desired: ObjectState[], stored: ObjectState[],
  sensitive: ContainerPolicy['sensitivePaths'] = []): ManifestError[] {
  const errors: ManifestError[] = [];
  for (const m of manifests) {
    if (m.kind !== 'Service' || !m.metadata.environment) continue;
    const { volumes, composeTemplate } = m.spec as { volumes?: VolumeEntry[]; composeTemplate?: string | null };
    if (!volumes?.length && !composeTemplate) continue;
    // as the API checks what a request writes: a service this apply leaves as it is meets a
    // tightened policy when its next plan renders it
    const have = stored.find((o) => o.kind === 'Service' && o.environment === m.metadata.environment && o.name === m.metadata.name)?.fields;
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    if (have && same([...volumes ?? []].map((v) => JSON.stringify(v)).sort(), [...(have.volumes as VolumeEntry[] | null) ?? []].map((v) => JSON.stringify(v)).sort()) && same(composeTemplate, have.composeTemplate)) continue;
    let request;
    try {
      request = requestOfSpec({ volumes, composeTemplate }, m.metadata.name);
    } catch (e) {
      if (isAppError(e)) continue; // an unreadable template is the schema's and problems' report
      throw e;
    }
    for (const r of containerPolicyRefusals(request, policyOf(m.metadata.environment, desired, stored, sensitive))) {
      const path = ['spec', ...r.field.split('.')];
      errors.push({ file: m.file, ...m.positionOf(path), path: path.join('/'), message: r.message });
    }
  }
  return errors;
}
