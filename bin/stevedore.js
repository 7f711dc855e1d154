#!/usr/bin/env node
// Runs the service from one bundle of its TypeScript sources (server-bundle.js says why), built
// here when a source changed: no build step to forget. `stevedore build` only builds it, for an
// install the service's own user may not write.
import { pathToFileURL } from 'node:url';
import { serverBundle } from './server-bundle.js';

const argv = process.argv.slice(2);
const bundle = await serverBundle();
if (argv[0] === 'build') {
  console.log(`built ${bundle}`);
} else {
  const { main, createApp } = await import(pathToFileURL(bundle).href);
  await main(argv, createApp);
}
