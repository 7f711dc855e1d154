#!/usr/bin/env node
// Runs the service from one bundle of its TypeScript sources (server-bundle.js says why), built
// here when a source changed: no build step to forget. `stevedore build` only builds it, for an
// install the service's own user may not write.
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { serverBundle } from './server-bundle.js';

// When collections are cheap V8 lets the heap grow to up to four times what survived the last
// full one before collecting again: a start-up resync of 10,000 deployments (45 MB live) peaked at
// 285 MB RSS. One and a half times keeps that peak at 173 MB in the same cycle time
// (bench/scale.ts). It is read at every collection, so setting it here, before the service
// loads, is enough; a value given on the command line or in NODE_OPTIONS wins.
if (!`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`.includes('--heap-growing-percent')) {
  v8.setFlagsFromString('--heap-growing-percent=50');
}

const argv = process.argv.slice(2);
const bundle = await serverBundle();
if (argv[0] === 'build') {
  console.log(`built ${bundle}`);
} else {
  const { main, createApp, RECONCILERS } = await import(pathToFileURL(bundle).href);
  await main(argv, createApp, RECONCILERS);
}
