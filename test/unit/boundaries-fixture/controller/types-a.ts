// With types-b.ts: a cycle through a type-only import, which no-cycles leaves alone.
import { TYPES_B } from './types-b.js';

export interface A { b: typeof TYPES_B }
export const TYPES_A = 'a';
