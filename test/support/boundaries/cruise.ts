import './typescript-for-cruiser.js';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/** The folders whose imports the boundaries govern. */
export const SOURCE_FOLDERS = ['api', 'bin', 'controller', 'manifests-schema', 'reconcilers'];

export interface Violation { rule: string; from: string; to: string; cycle?: string[] }

/**
 * Runs dependency-cruiser with the repository's .dependency-cruiser.cjs over `paths` (relative to
 * `baseDir`, the repository root unless a test hands in a fixture) and returns every violation.
 */
export async function findViolations(paths = SOURCE_FOLDERS, baseDir = process.cwd()): Promise<Violation[]> {
  const options = await extractDepcruiseOptions(new URL('../../../.dependency-cruiser.cjs', import.meta.url).pathname);
  const tsConfigFile = new URL('../../../tsconfig.json', import.meta.url).pathname;
  const tsConfig = extractTSConfig(tsConfigFile);
  const here = process.cwd();
  process.chdir(baseDir);
  try {
    const out = await cruise(paths, { ...options, baseDir, tsConfig: { fileName: tsConfigFile } }, {}, { tsConfig });
    const result = out.output as ICruiseResult;
    if (!result.summary) throw new Error('dependency-cruiser returned no summary');
    return result.summary.violations.map((v: IViolation) => ({
      rule: v.rule.name, from: v.from, to: v.to, ...(v.cycle && { cycle: v.cycle.map((c) => c.name) }),
    }));
  } finally {
    process.chdir(here);
  }
}

export const describeViolation = (v: Violation) =>
  `${v.rule}: ${v.from} -> ${v.to}${v.cycle ? ` (cycle: ${v.cycle.join(' -> ')})` : ''}`;
