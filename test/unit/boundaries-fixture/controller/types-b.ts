import type { A } from './types-a.js';

export const TYPES_B = 'b';
export type B = A;
