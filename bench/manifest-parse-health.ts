// bench/manifest-parse-health.ts - what parsing a 1 MB manifest does to everything else the
// controller serves. Loads one 1 MB file (~3,900 documents) with loadManifests (one piece of
// synchronous work, as before issue 26) and with loadManifestsPaced (slices of YAML_LIMITS.sliceMs),
// while a 1 ms timer records how late it fires: the longest delay is what a /health request
// arriving at the worst moment waits. Also times the refusal of 200,000 empty documents (800 KB).
// Validators are compiled first, as the service does before it listens.
//   npx tsx bench/manifest-parse-health.ts
import { loadManifests, loadManifestsPaced } from '../controller/manifests/load.js';
import { compileValidators } from '../controller/manifests/validate.js';
import { YAML_LIMITS } from '../controller/yaml/read-yaml.js';

const RUNS = Number(process.env.RUNS ?? 3);
const doc = (i: number) => `apiVersion: stevedore/v1\nkind: Var\nmetadata: {name: V_${i}, environment: demo}\nspec: {value: "${'x'.repeat(150)}"}\n`;
const parts: string[] = [];
for (let i = 0, size = 0; size < 1_000_000; i++) size += (parts[i] = doc(i)).length + 4;
const big = [{ path: 'big.yaml', content: parts.join('---\n').slice(0, 1_000_000) }];
const bomb = [{ path: 'many.yaml', content: '---\n'.repeat(200_000) }];

/** Runs `work` while a 1 ms timer measures the event loop's longest delay. */
async function measure(work: () => unknown): Promise<{ ms: number; maxDelayMs: number }> {
  let last = performance.now();
  let maxDelayMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxDelayMs = Math.max(maxDelayMs, now - last);
    last = now;
  }, 1);
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 5)); // the timer fires once more: a piece of work that held the loop shows
  clearInterval(timer);
  return { ms, maxDelayMs };
}

compileValidators();
console.log(`1 MB manifest, ${parts.length} documents; slices of ${YAML_LIMITS.sliceMs} ms; ${RUNS} runs each`);
for (let run = 1; run <= RUNS; run++) {
  const whole = await measure(() => loadManifests(big));
  const paced = await measure(() => loadManifestsPaced(big, 'folder'));
  const refused = await measure(() => loadManifestsPaced(bomb, 'folder'));
  console.log(`run ${run}: in one piece ${whole.ms.toFixed(0)} ms (event loop held ${whole.maxDelayMs.toFixed(0)} ms) | `
    + `paced ${paced.ms.toFixed(0)} ms (longest delay ${paced.maxDelayMs.toFixed(1)} ms) | `
    + `200,000 documents refused after ${refused.ms.toFixed(0)} ms (longest delay ${refused.maxDelayMs.toFixed(1)} ms)`);
}
