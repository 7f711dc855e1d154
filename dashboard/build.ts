// Bundles the dashboard (dashboard/src, Preact) with esbuild, in memory, the first time it is asked
// for: the service serves what it built, so there is no build step to forget and no stale bundle
// on disk. The same function feeds the size test and the bench.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export interface Asset {
  body: Buffer;
  gzip: Buffer;
  contentType: string;
}

const root = dirname(fileURLToPath(import.meta.url));

/** Every file the first page loads, by URL path. */
export async function buildDashboard(): Promise<Map<string, Asset>> {
  const out = await build({
    entryPoints: { app: join(root, 'src/main.tsx') },
    bundle: true, write: false, minify: true, format: 'esm', target: 'es2020', outdir: '/assets',
    jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'silent',
    loader: { '.css': 'css' },
  });
  const assets = new Map<string, Asset>();
  const add = (path: string, body: Buffer, contentType: string) => assets.set(path, { body, gzip: gzipSync(body, { level: 9 }), contentType });
  for (const f of out.outputFiles) {
    const path = f.path.slice(f.path.indexOf('/assets/'));
    add(path, Buffer.from(f.contents), path.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
  }
  add('/index.html', Buffer.from(readFileSync(join(root, 'index.html'))), 'text/html; charset=utf-8');
  return assets;
}

let built: Promise<Map<string, Asset>> | undefined;

/** The bundle, built once per process (a failed build is retried on the next request). */
export function dashboardAssets(): Promise<Map<string, Asset>> {
  built ??= buildDashboard().catch((err) => { built = undefined; throw err; });
  return built;
}
