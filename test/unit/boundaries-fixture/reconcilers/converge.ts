// Imports controller/, as a reconciler may.
import { TYPES_A } from '../controller/types-a.js';

export type Converge = () => typeof TYPES_A;
