// At most `max` calls of the returned function run at once; the others wait in order. For work
// that starts for every server together (1,000 event streams opening at start-up) and would
// otherwise ask the database pool for 1,000 connections at the same moment.
export function concurrencyLimit(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    // a finishing call hands its slot to the next waiter directly (active stays counted)
    if (active >= max) await new Promise<void>((r) => waiting.push(r));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
