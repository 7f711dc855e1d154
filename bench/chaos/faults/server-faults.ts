// The server-side network and disk faults of the chaos harness (bench/chaos.ts).
import type { Fault } from '../fault.js';
import { diskFull } from './disk-full.js';
import { linkCut } from './link-cut.js';
import { netem } from './netem.js';

export function serverFaults(): Fault[] {
  return [linkCut(), netem(), diskFull()];
}
