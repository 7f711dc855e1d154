// @ts-check
// The service as one ES module, built from the TypeScript sources with esbuild and kept in
// node_modules/.cache/stevedore/, rebuilt only when a source it was built from has changed.
//
// Why not run the sources through a TypeScript loader (tsx, as before): Node 20 runs module
// loaders in a thread of their own, which holds its heap for the life of the process. Measured
// on an idle service: 171–178 MB RSS through tsx, 115–117 MB from this bundle, and /health
// answers in 1.8 s instead of 3.7 s. Source maps are written beside the bundle but not loaded by
// default (they cost 13–23 MB): `NODE_OPTIONS=--enable-source-maps` maps stack traces to the
// .ts files when debugging.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = "export { main } from './controller/cli/main.ts'; export { createApp } from './api/app.ts'; "
  + "export { RECONCILERS } from './reconcilers/wiring.ts';";

/**
 * Size and modification time: what tells that a file or a folder changed.
 * @param {string} file
 */
function stamp(file) {
  try {
    const s = fs.statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/**
 * True when `bundle` exists and every source it was built from, and every folder holding one,
 * is as it was then. Folders count because a glob import (the migrations) takes in a file that
 * was added without any other source changing.
 * @param {string} bundle
 */
export function isFresh(bundle, stampsFile = `${bundle}.inputs.json`) {
  if (!fs.existsSync(bundle)) return false;
  try {
    const stamps = JSON.parse(fs.readFileSync(stampsFile, 'utf8'));
    return Object.entries(stamps).every(([file, s]) => stamp(file) === s);
  } catch {
    return false;
  }
}

/**
 * esbuild plugin: bare imports (packages) stay imports, but of the file Node itself resolves
 * them to from the project, so the bundle loads from any folder; each source's `import.meta.url`
 * stays its own file's URL, so paths relative to a source (the migrations, the dashboard, the
 * agent script, package.json) still resolve. Records the stamp of each source before reading it.
 * @param {Record<string, string>} stamps
 * @returns {import('esbuild').Plugin}
 */
function projectSources(stamps) {
  return {
    name: 'project-sources',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || args.kind === 'entry-point') return undefined;
        return { path: import.meta.resolve(args.path), external: true };
      });
      b.onLoad({ filter: /\.tsx?$/ }, (args) => {
        stamps[args.path] = stamp(args.path);
        const dir = path.dirname(args.path);
        stamps[dir] ??= stamp(dir);
        const source = fs.readFileSync(args.path, 'utf8');
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
      });
    },
  };
}

/**
 * Builds `entry` (TypeScript source text resolved from `root`) into `bundle`, written under a
 * temporary name and renamed, so a replica starting at the same moment reads either the old
 * bundle or the new one, never half of one.
 * @param {string} bundle
 * @param {{ root?: string, entry?: string }} [options]
 */
export async function buildBundle(bundle, { root = ROOT, entry = ENTRY } = {}) {
  const esbuild = await import('esbuild');
  /** @type {Record<string, string>} */
  const stamps = {};
  try {
    const out = await esbuild.build({
      stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'stevedore-entry.ts' },
      bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile: bundle, write: false,
      sourcemap: 'linked', logLevel: 'silent', plugins: [projectSources(stamps)],
    });
    fs.mkdirSync(path.dirname(bundle), { recursive: true });
    const tmp = `.${process.pid}.tmp`;
    for (const f of out.outputFiles) fs.writeFileSync(f.path + tmp, f.contents);
    fs.writeFileSync(`${bundle}.inputs.json${tmp}`, JSON.stringify(stamps));
    for (const f of [`${bundle}.map`, `${bundle}.inputs.json`, bundle]) fs.renameSync(f + tmp, f);
  } finally {
    await esbuild.stop(); // its helper process would otherwise live as long as the service
  }
}

/**
 * The bundle's file, built first when missing or stale. A stale bundle in a folder the process
 * may not write (an install owned by root, a read-only system) is an error that says what to run.
 * @param {string} [bundle]
 */
export async function serverBundle(bundle = path.join(ROOT, 'node_modules', '.cache', 'stevedore', 'server.mjs')) {
  if (isFresh(bundle)) return bundle;
  try {
    await buildBundle(bundle);
  } catch (err) {
    const e = /** @type {NodeJS.ErrnoException} */ (err);
    if (e.code !== 'EACCES' && e.code !== 'EROFS' && e.code !== 'EPERM') throw e;
    throw new Error(`the service's bundle ${bundle} is missing or older than its sources, and this user may not write it (${e.code}): ` +
      `run \`node bin/stevedore.js build\` as the owner of ${ROOT}`);
  }
  return bundle;
}
