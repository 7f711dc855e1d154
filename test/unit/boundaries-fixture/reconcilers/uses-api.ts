// Violates no-api-from-the-core.
import { path } from '../api/route.js';

export const where = path;
