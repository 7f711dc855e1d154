import { build, type Plugin } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI_VERSION } from '../version.js';

const ENTRY = fileURLToPath(new URL('../cli/client-main.ts', import.meta.url));

/**
 * Native addons (ssh2's optional crypto binding, cpu-features) cannot live in one file. Their
 * packages load them inside try/catch and fall back to pure JavaScript, so each import becomes
 * a module that throws: the fallback is what the bundle runs.
 */
const nativeAddonsFallBack: Plugin = {
  name: 'native-addons-fall-back',
  setup(b) {
    b.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path, namespace: 'native-addon' }));
    b.onLoad({ filter: /.*/, namespace: 'native-addon' }, () => ({
      contents: "throw new Error('native addon not bundled: the pure JavaScript fallback is used');", loader: 'js',
    }));
  },
};

/** version.ts reads package.json at run time, which a lone file has not: the version is baked in. */
const versionBakedIn: Plugin = {
  name: 'version-baked-in',
  setup(b) {
    b.onResolve({ filter: /\/version\.js$/ }, (args) => ({ path: args.path, namespace: 'stevedore-version' }));
    b.onLoad({ filter: /.*/, namespace: 'stevedore-version' }, () => ({
      contents: ['VERSION', 'AGENT_VERSION', 'CLI_VERSION'].map((n) => `export const ${n} = ${JSON.stringify(CLI_VERSION)};`).join('\n'),
      loader: 'js',
    }));
  },
};

/**
 * Builds the downloadable CLI: client-main.ts and everything it imports in one CommonJS file
 * for Node >= 20, with a shebang. Answers the files it was built from. CommonJS, not an ES module: dependencies such as ssh2 use
 * require and __dirname, which an ES module has not.
 */
export async function bundleCli(outfile: string): Promise<string[]> {
  const result = await build({
    entryPoints: [ENTRY], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20',
    minify: true, legalComments: 'none', logLevel: 'silent', plugins: [nativeAddonsFallBack, versionBakedIn],
    banner: { js: '#!/usr/bin/env node' }, metafile: true,
  });
  // the files it was built from (the virtual modules of the plugins have a namespace: prefix)
  return Object.keys(result.metafile.inputs).filter((f) => !/^[\w-]+:/.test(f)).map((f) => path.resolve(f));
}
