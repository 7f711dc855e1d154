// Violates no-reconcilers-from-controller (a type-only import counts).
import type { Converge } from '../reconcilers/converge.js';

export const later = (c: Converge) => c;
