#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx's loader: no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../controller/cli/main.ts');
const { createApp } = await import('../api/app.ts');
await main(process.argv.slice(2), createApp);
