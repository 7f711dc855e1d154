// With types-b.ts: a cycle through a type-only import, which violates no-cycles too.
import { TYPES_B } from './types-b.js';

export interface A { b: typeof TYPES_B }
export const TYPES_A = 'a';
