// With cycle-b.ts: a cycle of value imports (violates no-cycles).
import { b } from './cycle-b.js';

export const a = () => b;
