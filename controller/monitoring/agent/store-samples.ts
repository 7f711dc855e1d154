// Where agent samples go: the metrics time-series storage.
import type { Services } from '../../services.js';
import type { ServerSample } from '../server-sample.js';

export async function storeServerSamples(_s: Services, _samples: ServerSample[]): Promise<void> {
  // replaced by the metrics repository's insertServerSamples when the storage lands (metrics14)
}
