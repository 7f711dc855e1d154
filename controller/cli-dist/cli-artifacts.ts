import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_VERSION } from '../version.js';
import { bundleCli } from './bundle-cli.js';

/**
 * The platforms the CLI download is offered for. The download is one JavaScript file for Node
 * >= 20, the same bytes on every platform: native single-file executables would need each
 * platform's Node binary, which this installation does not carry. The list says so (`format`,
 * `requires`) rather than pretending otherwise.
 */
export const CLI_OSES = ['linux', 'darwin', 'windows'] as const;
export const CLI_ARCHES = ['x64', 'arm64'] as const;
export type CliOs = (typeof CLI_OSES)[number];
export type CliArch = (typeof CLI_ARCHES)[number];

export interface CliBundle {
  file: string;
  size: number;
  sha256: string;
  version: string;
}

export interface CliDownload {
  os: CliOs;
  arch: CliArch;
  version: string;
  format: 'node-bundle';
  requires: string;
  fileName: string;
  size: number;
  sha256: string;
  url: string;
}

const building = new Map<string, Promise<CliBundle>>();

const stamp = (file: string) => {
  try {
    const st = fs.statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

/**
 * True when the bundle, its checksum and the record of its sources exist and no source changed
 * since: the version alone does not tell, since a checkout keeps its version while the CLI's
 * sources change, and the download must be the program the package's bin runs.
 */
export function isCliBundleFresh(file: string): boolean {
  try {
    if (!fs.existsSync(`${file}.sha256`)) return false;
    const stamps = JSON.parse(fs.readFileSync(`${file}.inputs.json`, 'utf8')) as Record<string, string>;
    return fs.existsSync(file) && Object.entries(stamps).every(([source, s]) => stamp(source) === s);
  } catch {
    return false;
  }
}

async function buildOnce(dir: string): Promise<CliBundle> {
  const file = path.join(dir, `stevedore-${CLI_VERSION}.cjs`);
  const sumFile = `${file}.sha256`;
  if (!isCliBundleFresh(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // build beside, then rename: a reader never sees half a file
    const tmp = `${file}.${process.pid}.tmp`;
    const sources = await bundleCli(tmp);
    const sum = createHash('sha256').update(fs.readFileSync(tmp)).digest('hex');
    fs.renameSync(tmp, file);
    fs.writeFileSync(sumFile, `${sum}\n`);
    fs.writeFileSync(`${file}.inputs.json`, JSON.stringify(Object.fromEntries(sources.map((f) => [f, stamp(f)]))));
  }
  return { file, size: fs.statSync(file).size, sha256: fs.readFileSync(sumFile, 'utf8').trim(), version: CLI_VERSION };
}

/**
 * The CLI bundle of this version, built on first use into `<stateDir>/cli/<version>/` (about a
 * second) and kept there until one of its sources changes; concurrent callers share one build.
 */
export function cliBundle(stateDir: string): Promise<CliBundle> {
  const dir = path.join(stateDir, 'cli', CLI_VERSION);
  let p = building.get(dir);
  if (!p) {
    p = buildOnce(dir);
    building.set(dir, p);
    p.catch(() => building.delete(dir));
  }
  return p;
}

export const cliFileName = (os: CliOs, arch: CliArch) => `stevedore-${CLI_VERSION}-${os}-${arch}.cjs`;

export function cliDownloads(bundle: CliBundle): CliDownload[] {
  return CLI_OSES.flatMap((os) => CLI_ARCHES.map((arch) => ({
    os, arch, version: bundle.version, format: 'node-bundle' as const, requires: 'node >= 20',
    fileName: cliFileName(os, arch), size: bundle.size, sha256: bundle.sha256, url: `/api/system/cli/${os}/${arch}`,
  })));
}
