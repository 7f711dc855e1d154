// Looks at thousands of deployments (a resync) read the same few rows of their environment
// (operations settings, vars, secrets) for each one. A look that needs a read another look has in
// flight right now waits for that one instead of asking again: nothing is kept once it answered,
// so no look sees anything older than a read that started while it was already waiting. Only
// looks share (a deploy reads for itself: it must see what was committed before it started).
const inFlight = new Map<string, Promise<unknown>>();

export function sharedRead<T>(key: string, read: () => Promise<T>): Promise<T> {
  const running = inFlight.get(key);
  if (running) return running as Promise<T>;
  const p = read().finally(() => inFlight.delete(key));
  inFlight.set(key, p);
  return p;
}
